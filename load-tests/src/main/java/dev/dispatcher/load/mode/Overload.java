package dev.dispatcher.load.mode;

import java.util.List;

/**
 * {@code overload}: the service jar in a small heap, its PostgreSQL frozen, {@code --n} clients posting one large
 * message each at once.
 *
 * @param requests {@code --n} (default {@value #DEFAULT_REQUESTS})
 * @param payloadBytes {@code --payload-bytes} (default {@value #DEFAULT_PAYLOAD_BYTES}, the service's {@code
 *     dispatcher.ingest.max-payload-size})
 * @param serviceArgs {@code --service-args "--name=value ..."}
 * @param servers the embedded PostgreSQL (its processes are frozen), the broker as given
 */
public record Overload(int requests, int payloadBytes, List<String> serviceArgs, Servers servers)
        implements BenchMode {

    public static final String NAME = "overload";
    public static final int DEFAULT_REQUESTS = 300;
    public static final int DEFAULT_PAYLOAD_BYTES = 1024 * 1024;

    @Override
    public String name() {
        return NAME;
    }

    static Overload parse(Options o) {
        return new Overload(o.integer("n", DEFAULT_REQUESTS, 1, 100_000),
                o.integer("payload-bytes", DEFAULT_PAYLOAD_BYTES, 3, 64 * 1024 * 1024), o.serviceArgs(),
                Servers.parseEmbeddedPostgres(o, "overload freezes PostgreSQL's processes: it needs the embedded"
                        + " server, not --pg-url"));
    }
}
