package dev.dispatcher.load.inprocess;

import dev.dispatcher.app.DispatcherApplication;
import dev.dispatcher.app.inbox.InboxHandler;
import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.bench.ServiceAccess;
import dev.dispatcher.load.bench.ServiceClient;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;

/**
 * The Dispatcher service in the harness's JVM, started through its public entry point: Spring Boot's {@link
 * SpringApplication} on {@link DispatcherApplication} with command-line properties, as {@code java -jar} takes them,
 * on the harness's servers and a schema the service migrates (or finds migrated). The harness then drives it as an
 * operator would: SQL into its tables, HTTP to its pause switch, {@code /v1/stats} and Prometheus endpoint ({@link
 * #client()}). Used by the in-process modes (CI's quick runs, {@code exec:java}); figures that count come from the
 * service jar in its own JVM.
 *
 * <p>Unlike the jar's {@code main}, the event loops are Reactor Netty's default, as the in-process modes always ran.
 * Closing stops the service as a platform would: the relay drains its in-flight batches, the inbox its messages.
 */
public final class InProcessService implements AutoCloseable {

    private final ConfigurableApplicationContext context;
    private final ServiceClient client;

    private InProcessService(ConfigurableApplicationContext context, ServiceClient client) {
        this.context = context;
        this.client = client;
    }

    /**
     * Starts the service on {@code schema} with {@code arguments} ({@code --name=value}) and the in-process inbox
     * {@code handlers} as beans (an application's handlers, named by {@code dispatcher.inbox.consumers[i].handler});
     * returns once it serves HTTP.
     */
    public static InProcessService start(BenchEnvironment env, String schema, List<String> arguments,
            List<InboxHandler> handlers) throws Exception {
        ServiceAccess access = ServiceAccess.random();
        List<String> args = new ArrayList<>(ServiceAccess.serverArguments(env.postgres(), env.kafka(), schema));
        args.add("--server.port=0");
        args.addAll(access.arguments());
        args.addAll(arguments);
        SpringApplication application = new SpringApplication(DispatcherApplication.class);
        application.setBannerMode(Banner.Mode.OFF);
        application.addInitializers(context -> {
            for (InboxHandler handler : handlers) {
                ((GenericApplicationContext) context).registerBean("benchHandler-" + handler.name(),
                        InboxHandler.class, () -> handler);
            }
        });
        ConfigurableApplicationContext context = Progress.during("service", "starting in this JVM", "started",
                () -> application.run(args.toArray(String[]::new)));
        String port = context.getEnvironment().getProperty("local.server.port");
        return new InProcessService(context, new ServiceClient("http://localhost:" + port, access));
    }

    /** The service over HTTP. */
    public ServiceClient client() {
        return client;
    }

    @Override
    public void close() {
        context.close();
    }
}
