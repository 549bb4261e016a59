package dev.dispatcher.load.blackbox;

import dev.dispatcher.app.config.InboxProperties;
import dev.dispatcher.load.mode.Ordering;
import java.util.ArrayList;
import java.util.List;

/**
 * The black-box services' settings beyond the servers: the service's defaults but what a run sets. Public for the
 * ingest benchmark, whose AOT training run starts its service with the inbox consumer of {@code blackbox-inbox}.
 */
public final class ServiceArguments {

    private ServiceArguments() {
    }

    /** The relay's {@code ordering}, then {@code --service-args} (later settings win). */
    static List<String> relay(Ordering ordering, List<String> serviceArgs) {
        List<String> arguments = new ArrayList<>();
        arguments.add("--dispatcher.relay.ordering=" + ordering.text());
        arguments.addAll(serviceArgs);
        return arguments;
    }

    /**
     * One inbox consumer, {@code bench}, reading {@code topic} in {@code group} with the webhook handler POSTing to
     * {@code url} at {@code concurrency}, its other settings the service's defaults; then {@code --service-args}.
     */
    public static List<String> inbox(String topic, String group, String url, int concurrency, List<String> serviceArgs) {
        String c = "--dispatcher.inbox.consumers[0].";
        List<String> arguments = new ArrayList<>(List.of(c + "name=bench", c + "topics=" + topic,
                c + "group-id=" + group, c + "handler=" + InboxProperties.Consumer.WEBHOOK_HANDLER,
                c + "webhook.url=" + url, c + "concurrency=" + concurrency));
        arguments.addAll(serviceArgs);
        return arguments;
    }
}
