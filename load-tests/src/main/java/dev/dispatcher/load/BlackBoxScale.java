package dev.dispatcher.load;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code blackbox-scale}: the scale curve with the service jar, as users deploy it: for each step, that many
 * services ({@code java -jar}, default settings but {@code --ordering}, each in its own JVM) on one schema. They
 * warm up together on rows of their own topics, paused and resumed through the cluster-wide switch as {@code
 * blackbox} does, until the services have nearly stopped compiling (their mean compilation time); then the switch
 * pauses them, N rows are seeded, analysed and checkpointed, and the switch resumes them. The rate counts, as
 * {@code blackbox}'s {@code msgs_per_s}, from the first claim to the last delivery by the rows' own times; lost and
 * duplicates come from the harness's consumer, which waits for all N ids. Per step it prints the rate, the drain's
 * window in UTC and the Applied Deliver transitions the services' own metrics counted in the measured drain, summed
 * (must equal N). RESULT as {@code scale}'s ({@link ScaleCurve}), with {@code "service_jar":true}.
 */
final class BlackBoxScale {

    /** The Applied Deliver counter of the outbox in a Prometheus text exposition, one line per durable status. */
    private static final Pattern APPLIED_DELIVERS = Pattern.compile(
            "^dispatcher_transition_attempts_total\\{(?=[^}]*queue=\"outbox\")(?=[^}]*transition=\"deliver\")"
                    + "(?=[^}]*outcome=\"applied\")[^}]*}\\s+(\\S+)$", Pattern.MULTILINE);

    private BlackBoxScale() {
    }

    static String run(BenchEnvironment env, BenchOptions o) throws Exception {
        Map<String, Object> r = ScaleCurve.run(env, o, "blackbox-scale", k -> step(env, o, k));
        r.put("service_jar", true);
        return RelayBenchmark.json(r);
    }

    private static ScaleCurve.Step step(BenchEnvironment env, BenchOptions o, int k) throws Exception {
        BlackBoxDrain.Topics topics = BlackBoxDrain.Topics.create(env);
        List<ServiceProcess> services = new ArrayList<>();
        try {
            for (int i = 0; i < k; i++) {
                services.add(BlackBoxDrain.startService(env, o, topics.schema(),
                        Path.of("target", "blackbox-scale-service-" + i + ".log")));
            }
            List<JitWarmUp.CompilationClock> clocks = services.stream().map(JitWarmUp::service).toList();
            JitWarmUp.CompilationClock meanOfServices = () -> {
                long sum = 0;
                for (JitWarmUp.CompilationClock clock : clocks) {
                    sum += clock.millis();
                }
                return sum / clocks.size(); // the services' mean, so the settled share means the same for any k
            };
            if (o.warmup() > 0) {
                BlackBoxDrain.warmUp(env, o, meanOfServices, topics.schema(), topics.warmUp());
            }
            long appliedBefore = appliedDelivers(services);
            try (Confirmations confirmed = new Confirmations(env.kafka.bootstrapServers(), topics.measured(), 6,
                    Confirmations.Fetch.THROUGHPUT)) {
                BlackBoxDrain.setPaused(env, topics.schema(), true);
                env.insertRows(topics.schema(), topics.measured(), o, o.n());
                BlackBoxDrain.setPaused(env, topics.schema(), false);
                boolean confirmedAll = confirmed.awaitDistinct(o.n(), Duration.ofMinutes(10), () -> { });
                // by the rows' own times, as blackbox counts: the services see the switch within their poll
                // interval (1 s), which a clock started at the resume would count as drain time
                BlackBoxDrain.Deliveries deliveries = BlackBoxDrain.deliveries(env, topics.schema(), topics.measured());
                if (!confirmedAll) {
                    System.out.printf(Locale.ROOT, "blackbox-scale: %d service(s): NOT all confirmed%n", k);
                }
                Set<String> ids = env.ids(topics.schema(), topics.measured());
                return new ScaleCurve.Step(k, deliveries.rate(), appliedDelivers(services) - appliedBefore,
                        confirmed.lost(ids), confirmed.duplicates(), deliveries.window());
            }
        } finally {
            for (ServiceProcess service : services) {
                service.close();
            }
        }
    }

    /** The Applied Deliver transitions of the outbox, summed over the services' Prometheus endpoints. */
    private static long appliedDelivers(List<ServiceProcess> services) throws Exception {
        long sum = 0;
        for (ServiceProcess service : services) {
            sum += appliedDelivers(service.prometheus());
        }
        return sum;
    }

    /** The outbox's Applied Deliver transitions in one Prometheus text exposition (0 before the first). */
    static long appliedDelivers(String exposition) {
        long sum = 0;
        Matcher m = APPLIED_DELIVERS.matcher(exposition);
        while (m.find()) {
            sum += (long) Double.parseDouble(m.group(1));
        }
        return sum;
    }
}
