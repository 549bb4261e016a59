package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.mode.Ordering;
import java.util.ArrayList;
import java.util.List;

/** The black-box services' settings beyond the servers: the service's defaults but what a run sets. */
final class ServiceArguments {

    private ServiceArguments() {
    }

    /** The relay's {@code ordering}, then {@code --service-args} (later settings win). */
    static List<String> relay(Ordering ordering, List<String> serviceArgs) {
        List<String> arguments = new ArrayList<>();
        arguments.add("--dispatcher.relay.ordering=" + ordering.text());
        arguments.addAll(serviceArgs);
        return arguments;
    }
}
