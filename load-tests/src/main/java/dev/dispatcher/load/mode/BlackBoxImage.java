package dev.dispatcher.load.mode;

import java.util.List;

/**
 * {@code blackbox-image}: the service's container image against its exec jar, in one run on the same servers: in
 * each of {@code --rounds} rounds the jar ({@code java -jar}) and then the image ({@code podman run --network=host})
 * start on a schema of their own, are timed from the launch to healthy, warm up and drain N rows seeded while paused,
 * as {@code blackbox} does, and stop on SIGTERM ({@code podman stop} for the image).
 *
 * @param backlog {@code --n} (default {@value #DEFAULT_N}, {@value #QUICK_N} with {@code --quick}), {@code --keys},
 *     {@code --payload-bytes}
 * @param ordering {@code --ordering} (default per-key)
 * @param rounds {@code --rounds}: jar-then-image pairs (default {@value #DEFAULT_ROUNDS}, {@value #QUICK_ROUNDS}
 *     with {@code --quick})
 * @param warmup {@code --warmup}: rows of one warm-up round of each service (default {@value #DEFAULT_WARMUP}, none
 *     with {@code --quick})
 * @param image {@code --image}: the image's tag, built beforehand ({@code ./mvnw -pl dispatcher-image -am package
 *     -Pimage}); null (the default): the run builds {@value #BUILT_TAG} from the exec jar on the local base
 * @param serviceArgs {@code --service-args "--name=value ..."}: more settings on both services' command lines
 * @param servers the servers (on this host: the container shares its network)
 */
public record BlackBoxImage(Backlog backlog, Ordering ordering, int rounds, int warmup, String image,
        List<String> serviceArgs, Servers servers) implements BenchMode {

    public static final String NAME = "blackbox-image";
    public static final int DEFAULT_N = 100_000;
    public static final int QUICK_N = 3_000;
    public static final int DEFAULT_ROUNDS = 2;
    public static final int QUICK_ROUNDS = 1;
    public static final int DEFAULT_WARMUP = 100_000;
    /** The tag a run builds when {@code --image} is not given. */
    public static final String BUILT_TAG = "localhost/dispatcher:bench";

    @Override
    public String name() {
        return NAME;
    }

    static BlackBoxImage parse(Options o) {
        boolean quick = o.quick();
        String image = o.text("image", null);
        if (image != null && image.isBlank()) {
            throw new IllegalArgumentException("--image must name an image's tag, but was '" + image + "'");
        }
        return new BlackBoxImage(Backlog.parse(o, quick ? QUICK_N : DEFAULT_N, Backlog.DEFAULT_PAYLOAD_BYTES),
                Ordering.parse(o, Ordering.PER_KEY), o.integer("rounds", quick ? QUICK_ROUNDS : DEFAULT_ROUNDS, 1, 10),
                o.integer("warmup", quick ? 0 : DEFAULT_WARMUP, 0, Backlog.MAX_N), image, o.serviceArgs(),
                Servers.parse(o));
    }
}
