package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Confirmations;
import dev.dispatcher.load.bench.JitWarmUp;
import dev.dispatcher.load.bench.OutboxRows;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.bench.ServiceClient;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.mode.BlackBoxImage;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.RelayImage;
import dev.dispatcher.load.result.Round;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code blackbox-image}: the container image drains at the jar's rate (issue 54), measured in one run on the same
 * servers. The image is {@code --image}'s or built by the run ({@link ContainerImage}). Each of {@code --rounds}
 * rounds starts the exec jar ({@code java -jar}) and then the image ({@code podman run --rm --network=host}, the same
 * Spring arguments after the image's name, the same JVM options in {@code JAVA_TOOL_OPTIONS}), one at a time, each on
 * a schema of its own: timed from the launch until {@code /actuator/health} answers UP, warmed up as {@code blackbox}
 * warms up its service ({@link BlackBoxDrainBenchmark#warmUp}), then N rows seeded while the relay is paused and
 * drained, the rate taken by the rows' own times; then stopped (SIGTERM; {@code podman stop} for the image) and its
 * exit status kept. The JVM options are {@value #JVM_OPTIONS}, the image's own default, unless {@code
 * -Ddispatcher.bench.service-jvm-options} says otherwise. RESULT {@code relay-image}.
 */
public final class ImageDrainBenchmark {

    /** The Containerfile's {@code JAVA_TOOL_OPTIONS}: both services run with them. */
    static final String JVM_OPTIONS = "-XX:MaxRAMPercentage=75.0 -XX:+ExitOnOutOfMemoryError";

    private ImageDrainBenchmark() {
    }

    /** One service's start, drain and stop. */
    record Launched(double startupS, double rate, int exit, JitWarmUp.Result warm, long lost, long duplicates) {
    }

    public static RelayImage run(BenchEnvironment env, BlackBoxImage b) throws Exception {
        List<String> jvmOptions = Services.jvmOptions(JVM_OPTIONS);
        ContainerImage image = b.image() == null ? ContainerImage.build(BlackBoxImage.BUILT_TAG)
                : ContainerImage.given(b.image());
        System.out.printf(Locale.ROOT, "image: %s, %.1f MB uncompressed%n", image.tag(), image.bytes() / 1e6);
        List<Launched> jars = new ArrayList<>();
        List<Launched> images = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        for (int round = 1; round <= b.rounds(); round++) {
            Launched jar = launch(env, b, new ServiceProcess.Launch.Jar(ServiceProcess.defaultJar()), jvmOptions,
                    "jar", round);
            Launched container = launch(env, b, ServiceProcess.Launch.Image.of(image.tag()), jvmOptions, "image",
                    round);
            jars.add(jar);
            images.add(container);
            ratios.add(container.rate() / jar.rate());
            System.out.printf(Locale.ROOT, "image: round %d: jar %.0f msgs/s (healthy in %.1f s), image %.0f msgs/s"
                    + " (healthy in %.1f s): %.2f of the jar%n", round, jar.rate(), jar.startupS(), container.rate(),
                    container.startupS(), container.rate() / jar.rate());
        }
        List<Launched> all = new ArrayList<>(jars);
        all.addAll(images);
        long warmRows = all.stream().mapToLong(l -> l.warm().rows()).sum();
        int warmRounds = all.stream().mapToInt(l -> l.warm().rounds()).sum();
        double imageRate = median(rates(images));
        double jarRate = median(rates(jars));
        double ratio = median(ratios);
        double imageStart = median(startups(images));
        double jarStart = median(startups(jars));
        System.out.printf(Locale.ROOT, "image: median %.0f msgs/s against the jar's %.0f: %.2f (per round %s);"
                + " healthy in %.1f s against %.1f s%n", imageRate, jarRate, ratio, ratios, imageStart, jarStart);
        return new RelayImage(Common.of(env.fsync(), b.ordering().text(), b.backlog().keys().text(),
                b.backlog().payloadBytes(), warmRows, warmRounds), b.backlog().n(), b.rounds(), Round.one(imageRate),
                Round.one(jarRate), Round.two(ratio), Round.one(imageStart), Round.one(jarStart),
                rates(images).stream().map(Round::one).toList(), rates(jars).stream().map(Round::one).toList(),
                startups(images).stream().map(Round::one).toList(), startups(jars).stream().map(Round::one).toList(),
                images.stream().map(Launched::exit).toList(), jars.stream().map(Launched::exit).toList(), image.tag(),
                image.bytes(), image.buildSeconds() == null ? null : Round.one(image.buildSeconds()),
                String.join(" ", jvmOptions), all.stream().mapToLong(Launched::lost).sum(),
                all.stream().mapToLong(Launched::duplicates).sum());
    }

    /**
     * Starts the service by {@code launch} on a schema of its own, warms it up, drains N rows seeded while it is
     * paused, and stops it.
     */
    private static Launched launch(BenchEnvironment env, BlackBoxImage b, ServiceProcess.Launch launch,
            List<String> jvmOptions, String what, int round) throws Exception {
        BlackBoxDrainBenchmark.Topics topics = BlackBoxDrainBenchmark.Topics.create(env, what);
        String keys = b.backlog().keys().sqlExpression();
        int payloadBytes = b.backlog().payloadBytes();
        int n = b.backlog().n();
        OutboxRows outbox = new OutboxRows(env);
        String phase = "image: " + what + " round " + round;
        ServiceProcess service = Services.start(env, launch, jvmOptions, topics.schema(),
                ServiceArguments.relay(b.ordering(), b.serviceArgs()), "image-" + what + "-" + round);
        double startup = service.startup().toNanos() / 1e9;
        JitWarmUp.Result warm;
        double rate;
        long lost;
        long duplicates;
        try {
            ServiceClient client = service.client();
            warm = BlackBoxDrainBenchmark.warmUp(env, List.of(client), JitWarmUp.service(client), topics, keys,
                    payloadBytes, b.warmup());
            try (Confirmations confirmed = new Confirmations(env.kafka().bootstrapServers(), topics.measured(), 6,
                    Confirmations.Fetch.THROUGHPUT)) {
                long start = System.nanoTime();
                client.pause();
                outbox.insert(topics.schema(), topics.measured(), keys, payloadBytes, n);
                client.resume();
                boolean seen = confirmed.awaitDistinct(n, Duration.ofMinutes(10), Progress.since(phase, start),
                        client::backlog);
                OutboxRows.Deliveries deliveries = outbox.deliveries(topics.schema(), topics.measured());
                rate = deliveries.rate();
                lost = confirmed.lost(outbox.ids(topics.schema(), topics.measured()));
                duplicates = confirmed.duplicates();
                System.out.println(phase + ": delivered per second from the first claim: " + deliveries.eachSecond());
                System.out.printf(Locale.ROOT, "%s: %.0f msgs/s first claim to last delivery (%s UTC), %s%n", phase,
                        rate, deliveries.window(), seen ? "all confirmed" : "NOT all confirmed");
            }
        } catch (Exception | Error e) {
            service.close();
            throw e;
        }
        int exit = service.stop();
        System.out.printf(Locale.ROOT, "%s: stopped, exit status %d%n", phase, exit);
        return new Launched(startup, rate, exit, warm, lost, duplicates);
    }

    private static List<Double> rates(List<Launched> launched) {
        return launched.stream().map(Launched::rate).toList();
    }

    private static List<Double> startups(List<Launched> launched) {
        return launched.stream().map(Launched::startupS).toList();
    }

    private static double median(List<Double> values) {
        return FormatsDrainBenchmark.median(values);
    }
}
