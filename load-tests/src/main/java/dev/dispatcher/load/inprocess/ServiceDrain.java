package dev.dispatcher.load.inprocess;

import dev.dispatcher.load.bench.HarnessRelay;
import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Confirmations;
import dev.dispatcher.load.bench.OutboxRows;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.bench.ServiceClient;
import dev.dispatcher.load.mode.Ordering;
import dev.dispatcher.load.mode.RelayTuning;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One drain of the in-process modes: a fresh in-process service on a schema of its own, paused through its switch
 * while {@code n} rows are seeded (analysed and checkpointed), then resumed; timed from the resume until the
 * harness's consumer has seen every timed row on Kafka.
 *
 * @param env the servers
 * @param tuning the relay's settings
 * @param ordering the relay's ordering
 * @param payloadBytes each row's payload size
 */
record ServiceDrain(BenchEnvironment env, RelayTuning tuning, Ordering ordering, int payloadBytes) {

    /**
     * How a drain's backlog is made and which of its rows are timed.
     *
     * @param keyExpression the SQL key of generated row {@code g}
     * @param poisonFirst whether one row for a missing topic (key {@code poison}) goes first, before the N rows
     * @param failingKey a key whose records fail on every attempt ({@link FailingKeyPartitioner}), its rows not
     *     timed; null for none
     */
    record Shape(String keyExpression, boolean poisonFirst, String failingKey) {

        static Shape plain(String keyExpression) {
            return new Shape(keyExpression, false, null);
        }
    }

    /** One drain's timed rows, their rate, and those of them never or twice seen on Kafka. */
    record Run(int n, double msgsPerSecond, long lost, long duplicates) {
    }

    /** Drains {@code n} rows of {@code shape} on a new service. */
    Run drain(int n, Shape shape) throws Exception {
        OutboxRows rows = new OutboxRows(env);
        String schema = env.serviceSchema("drain");
        String topic = "bench-" + schema;
        env.createTopic(topic, 6);
        List<String> arguments = new ArrayList<>(HarnessRelay.arguments(tuning, ordering));
        if (shape.failingKey() != null) {
            arguments.addAll(FailingKeyPartitioner.arguments(shape.failingKey()));
        }
        try (InProcessService service = InProcessService.start(env, schema, arguments, List.of())) {
            ServiceClient client = service.client();
            client.pause();
            String poison = shape.poisonFirst() ? rows.insertPoison(schema, "bench-missing-" + schema) : null;
            rows.insert(schema, topic, shape.keyExpression(), payloadBytes, n);
            Set<String> ids = rows.ids(schema, topic, shape.failingKey());
            int timed = ids.size();
            try (Confirmations confirmed = new Confirmations(env.kafka().bootstrapServers(), topic, 6,
                    Confirmations.Fetch.THROUGHPUT)) {
                long start = System.nanoTime();
                client.resume();
                boolean all = confirmed.awaitDistinct(timed, Duration.ofMinutes(10), Progress.since("drain", start),
                        client::backlog);
                long elapsed = System.nanoTime() - start;
                if (poison != null) {
                    System.out.println("drain: the missing topic's row after the drain: "
                            + rows.describe(schema, poison));
                }
                double rate = timed / (elapsed / 1e9);
                System.out.printf(Locale.ROOT, "drain: %d messages in %.2f s = %.0f msgs/s (%s)%n", timed,
                        elapsed / 1e9, rate, all ? "all confirmed" : "NOT all confirmed");
                return new Run(timed, rate, confirmed.lost(ids), confirmed.duplicates());
            }
        }
    }
}
