package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Confirmations;
import dev.dispatcher.load.bench.OutboxRows;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.bench.RampUp;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.result.FreshStart;
import dev.dispatcher.load.result.Round;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Locale;

/**
 * A fresh service's first drain, as a new instance meets a backlog after a deploy or a scale-out: N rows are seeded
 * (and analysed and checkpointed) into a migrated schema before the service's JVM is launched; the drain is timed
 * from the launch. The per-second deliveries come from the rows' own {@code delivered_at}, counted from
 * PostgreSQL's clock read right before the launch ({@link RampUp}: the steady rate and {@code time_to_80pct_s}).
 * Open it before the launch ({@link #seed}), then {@link #await} once the service is up; closing stops its
 * consumer.
 */
final class FreshStartDrain implements AutoCloseable {

    private final BenchEnvironment env;
    private final String schema;
    private final String topic;
    private final int n;
    private final Confirmations confirmed;
    private final OffsetDateTime launchedAt;
    private final long launchedNanos;

    private FreshStartDrain(BenchEnvironment env, String schema, String topic, int n, Confirmations confirmed,
            OffsetDateTime launchedAt) {
        this.env = env;
        this.schema = schema;
        this.topic = topic;
        this.n = n;
        this.confirmed = confirmed;
        this.launchedAt = launchedAt;
        this.launchedNanos = System.nanoTime();
    }

    /**
     * Seeds {@code n} rows of {@code keys} to {@code topic} (6 partitions, created) in {@code schema} (migrated) and
     * starts counting them on Kafka; launch the service right after.
     */
    static FreshStartDrain seed(BenchEnvironment env, String schema, String topic, String keys, int payloadBytes,
            int n) throws Exception {
        env.createTopic(topic, 6);
        OutboxRows outbox = new OutboxRows(env);
        outbox.insert(schema, topic, keys, payloadBytes, n);
        Confirmations confirmed = new Confirmations(env.kafka().bootstrapServers(), topic, 6,
                Confirmations.Fetch.THROUGHPUT);
        return new FreshStartDrain(env, schema, topic, n, confirmed, outbox.databaseNow());
    }

    /**
     * Waits until the consumer has every row (10 minutes at most) and returns the drain's figures: {@code service}
     * must have been launched right after {@link #seed} and just have answered healthy.
     */
    Result await(ServiceProcess service, List<String> jvmOptions) throws Exception {
        double startup = (System.nanoTime() - launchedNanos) / 1e9;
        double startupCpu = service.cpu().toNanos() / 1e9;
        OutboxRows outbox = new OutboxRows(env);
        boolean all = confirmed.awaitDistinct(n, Duration.ofMinutes(10), Progress.of("fresh start"),
                () -> outbox.backlog(schema));
        RampUp ramp = RampUp.of(outbox.deliveredEachSecond(schema, topic, launchedAt));
        OutboxRows.Deliveries deliveries = outbox.deliveries(schema, topic);
        long lost = confirmed.lost(outbox.ids(schema, topic));
        System.out.println("fresh start: delivered per second from the launch: " + ramp.eachSecond());
        System.out.printf(Locale.ROOT, "fresh start: healthy %.1f s after the launch (%.1f s of CPU); %.0f msgs/s first"
                + " claim to last delivery (%s UTC), steady %.0f msgs/s, 0.8 of it first reached %d s after the launch"
                + " (%s)%n", startup, startupCpu, deliveries.rate(), deliveries.window(), ramp.steadyPerS(),
                ramp.timeTo80pctS(), all ? "all confirmed" : "NOT all confirmed");
        return new Result(new FreshStart(n, Round.one(startup), Round.one(startupCpu), ramp.timeTo80pctS(),
                Round.one(deliveries.rate()), Round.one(ramp.steadyPerS()), String.join(" ", jvmOptions)), lost,
                confirmed.duplicates());
    }

    /** The fresh drain's figures, and its lost and duplicate rows on Kafka. */
    record Result(FreshStart figures, long lost, long duplicates) {

        /** No fresh drain ran. */
        static final Result NONE = new Result(FreshStart.NONE, 0, 0);
    }

    @Override
    public void close() throws InterruptedException {
        confirmed.close();
    }
}
