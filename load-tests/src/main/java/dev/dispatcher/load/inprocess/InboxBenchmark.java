package dev.dispatcher.load.inprocess;

import dev.dispatcher.load.bench.HarnessRelay;
import dev.dispatcher.load.bench.PollPacing;
import dev.dispatcher.load.bench.RateBetweenMarks;
import dev.dispatcher.app.config.InboxProperties;
import dev.dispatcher.app.inbox.InboxHandler;
import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.mode.Inbox;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.FreshStart;
import dev.dispatcher.load.result.InboxDrain;
import dev.dispatcher.load.result.Round;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * {@code inbox}: the inbox at its receiver's pace. An in-process service with one inbox consumer ({@code
 * dispatcher.inbox.consumers[0]}: the default settings but {@code --concurrency}, {@code --ordering} and fast,
 * bounded retries) starts on the run's topic; then N records are produced to it, and the drain is timed from before
 * the first record until every record's effect has been seen.
 * <ul>
 *   <li>{@code --handler webhook}: the built-in webhook handler POSTs to a local {@link WebhookReceiver} that
 *       answers after {@code --receiver-delay-ms}. Its reference ceiling, measured in the same run, is the receiver
 *       driven directly by an HTTP client at the consumer's concurrency ({@link InboxCeilings}).</li>
 *   <li>{@code --handler sql}: an in-process handler bean ({@link InsertOneRow}) inserts one row per message in the
 *       message's own transaction. Its reference ceiling is PostgreSQL's own one-row durable INSERT transactions at
 *       the same concurrency, from JDBC.</li>
 * </ul>
 * Effects are counted where they happen (at the receiver by {@code Idempotency-Key}, or as rows of the effect
 * table): {@code lost} are ids without an effect, {@code duplicates} ids with more than one.
 *
 * <p>{@code --poison-key}: one record whose key is in Confluent's wire format (it starts with NUL, which PostgreSQL
 * text refuses) goes to partition 0 before the N ordinary records ({@link InboxRecords}); the RESULT adds what became
 * of it and the partitions behind their end. {@code --failing-key}: the handler fails every record of {@code key-0};
 * the run then drains twice, first without the failing key as the reference, and times both on the other 63 keys'
 * records. RESULT {@code inbox-drain}.
 */
public final class InboxBenchmark {

    /** The key whose records fail with {@code --failing-key}. */
    static final String FAILING_KEY = "key-0";

    private InboxBenchmark() {
    }

    /** One drain: rate, and effects as counted at their destination; {@code poison} only with a poison key. */
    record InboxRun(int n, double msgsPerSecond, Double middleHalfMsgsPerSecond, long lost, long duplicates,
            InboxRecords.PoisonOutcome poison) {
    }

    /** The records a drain is timed on. */
    enum Measured {
        /** Every record. */
        ALL,
        /** The records of every key but {@link #FAILING_KEY}, which is handled as the others. */
        OTHER_KEYS,
        /** The records of every key but {@link #FAILING_KEY}, whose records all fail meanwhile. */
        OTHER_KEYS_BESIDE_FAILING;

        boolean othersOnly() {
            return this != ALL;
        }
    }

    public static InboxDrain run(BenchEnvironment env, Inbox o) throws Exception {
        boolean webhook = o.handler() == Inbox.Handler.WEBHOOK;
        int ceilingN = Math.min(o.n(), Inbox.CEILING_MAX_N);
        try (WebhookReceiver receiver = new WebhookReceiver(Duration.ofMillis(o.receiverDelayMs()), o.failEvery())) {
            if (o.warmup() > 0) {
                InboxRun w = drain(env, o, receiver, o.warmup(), false, Measured.ALL);
                System.out.printf(Locale.ROOT, "warm-up: %d messages at %.0f msgs/s (not reported)%n", w.n(),
                        w.msgsPerSecond());
            }
            double ceiling = webhook ? InboxCeilings.receiver(receiver, o.concurrency(), ceilingN)
                    : InboxCeilings.transactions(env, o.concurrency(), ceilingN);
            InboxRun reference = o.failingKey() ? drain(env, o, receiver, o.n(), false, Measured.OTHER_KEYS) : null;
            InboxRun run = drain(env, o, receiver, o.n(), o.poisonKey(),
                    o.failingKey() ? Measured.OTHER_KEYS_BESIDE_FAILING : Measured.ALL);
            InboxRecords.PoisonOutcome poison = run.poison();
            return new InboxDrain(env.fsync(), Common.BROKERS, o.ordering().text(), Inbox.KEYS, o.payloadBytes(),
                    o.warmup(), o.handler().text(), run.n(), Round.one(run.msgsPerSecond()), Round.one(ceiling),
                    Round.one(run.msgsPerSecond() / ceiling), run.lost(), run.duplicates(), o.concurrency(),
                    webhook ? o.receiverDelayMs() : null, webhook ? o.failEvery() : null, o.failingKey(),
                    reference == null ? null : new InboxDrain.FailingKey("records of the 63 keys that do not fail",
                            Round.one(reference.msgsPerSecond()),
                            Round.one(run.msgsPerSecond() / reference.msgsPerSecond())),
                    o.poisonKey(), poison == null ? null : new InboxDrain.Poison(run.n() - run.lost(), poison.state(),
                            poison.partition(), poison.offset(), poison.handled(), poison.partitionsBehind()),
                    null, FreshStart.NONE, null, run.middleHalfMsgsPerSecond() == null ? null
                            : Round.one(run.middleHalfMsgsPerSecond()));
        }
    }

    static InboxRun drain(BenchEnvironment env, Inbox o, WebhookReceiver receiver, int n, boolean poisonKey,
            Measured measured) throws Exception {
        boolean webhook = o.handler() == Inbox.Handler.WEBHOOK;
        boolean fail = measured == Measured.OTHER_KEYS_BESIDE_FAILING;
        String schema = env.schema("inbox"); // migrated here, so the effect table can be there before the service
        String topic = "inbox-" + schema;
        String group = "bench-" + schema;
        env.createTopic(topic, InboxRecords.PARTITIONS);
        try (Connection c = env.jdbc(schema); Statement s = c.createStatement()) {
            if (!webhook) {
                s.execute("CREATE TABLE bench_effect (message_id text NOT NULL, message_key text,"
                        + " created_at timestamptz NOT NULL DEFAULT now())");
            }
            s.execute("CHECKPOINT"); // every timed phase starts from a fresh checkpoint, as the relay's
        }
        String oddId = "poison-key-" + schema;
        InboxRecords records = new InboxRecords(env, topic);
        InboxEffects effects = webhook ? InboxEffects.atReceiver(receiver, oddId, poisonKey)
                : InboxEffects.inTable(env, schema, oddId);
        receiver.failKey(fail ? FAILING_KEY : null);
        List<InboxHandler> handlers = webhook ? List.of() : List.of(new InsertOneRow(fail ? FAILING_KEY : null));
        long start;
        long elapsed;
        Set<String> measuredIds;
        RateBetweenMarks middleHalf;
        try (InProcessService service = InProcessService.start(env, schema,
                consumerArguments(o, topic, group, receiver), handlers)) {
            start = System.nanoTime();
            if (poisonKey) {
                records.producePoisonKey(oddId);
            }
            Set<String> ids = records.produce(n, o.payloadBytes());
            Set<String> failingKeyIds = ids.stream().filter(id -> id.startsWith(FAILING_KEY + "/"))
                    .collect(Collectors.toSet());
            measuredIds = measured.othersOnly()
                    ? ids.stream().filter(id -> !failingKeyIds.contains(id)).collect(Collectors.toSet()) : ids;
            LongSupplier seen = effects.counter(measured.othersOnly() ? failingKeyIds : Set.of(), measuredIds.size());
            int target = measuredIds.size();
            long deadline = start + Duration.ofMinutes(10).toNanos();
            Progress progress = Progress.since("inbox", start);
            long done;
            long lastDone = 0;
            long lastAt = start;
            middleHalf = new RateBetweenMarks(target / 4, target - target / 4);
            middleHalf.observe(0, start);
            while ((done = seen.getAsLong()) < target && System.nanoTime() < deadline) {
                long at = System.nanoTime();
                middleHalf.observe(done, at);
                Duration wait = PollPacing.next(effects.pollEvery(), effects.pollAtMost(), done, target,
                        done - lastDone, Duration.ofNanos(at - lastAt));
                lastDone = done;
                lastAt = at;
                Thread.sleep(wait.toMillis()); // the harness's main thread polls the effect count
                long now = done;
                progress.maybePrint(() -> progress.count(now, target, "effects"));
            }
            elapsed = System.nanoTime() - start;
            middleHalf.observe(done, start + elapsed);
        }
        receiver.failKey(null);
        int target = measuredIds.size();
        double rate = target / (elapsed / 1e9);
        OptionalDouble middle = middleHalf.perSecond();
        long lost = effects.lost(measuredIds, measured.othersOnly() ? FAILING_KEY : null);
        long duplicates = effects.duplicates();
        System.out.printf(Locale.ROOT, "inbox drain (%s, ordering %s, concurrency %d%s): %d messages in %.2f s ="
                        + " %.0f msgs/s (%s between the 25%% and 75%% marks); lost %d, duplicate effects %d%s%n",
                o.handler().text(), o.ordering().text(),
                o.concurrency(), switch (measured) {
                    case ALL -> "";
                    case OTHER_KEYS -> ", timed on the keys but " + FAILING_KEY;
                    case OTHER_KEYS_BESIDE_FAILING -> ", timed on the keys but " + FAILING_KEY + ", which fails";
                }, target, elapsed / 1e9, rate,
                middle.isPresent() ? String.format(Locale.ROOT, "%.0f msgs/s", middle.getAsDouble()) : "no rate",
                lost, duplicates, webhook ? "; receiver calls " + receiver.calls()
                        + ", 503s " + receiver.answered503() + ", for the failing key " + receiver.failingKeyCalls()
                        + ", without Idempotency-Key " + receiver.callsWithoutIdempotencyKey() : "");
        InboxRecords.PoisonOutcome poison = null;
        if (poisonKey) {
            poison = records.poisonOutcome(schema, oddId, effects.handled(oddId), group);
            System.out.printf(Locale.ROOT, "poison key: %d of %d ordinary records handled; the odd record is %s at"
                            + " %d@%d, handled %s%s; partitions behind their end: %d%n", n - lost, n, poison.state(),
                    poison.partition(), poison.offset(), poison.handled(),
                    poison.lastError() == null ? "" : " (" + poison.lastError() + ")", poison.partitionsBehind());
        }
        return new InboxRun(target, rate, middle.isPresent() ? middle.getAsDouble() : null, lost, duplicates, poison);
    }

    /**
     * The service's inbox consumer: {@code topic} in {@code group}, the run's handler, concurrency and ordering,
     * retries from 200 ms doubling to 2 s, 10 attempts; a pool with a connection per in-process handler call, two per
     * in-flight batch and four more (at least the service's 16).
     */
    private static List<String> consumerArguments(Inbox o, String topic, String group, WebhookReceiver receiver) {
        String c = "--dispatcher.inbox.consumers[0].";
        boolean webhook = o.handler() == Inbox.Handler.WEBHOOK;
        List<String> arguments = new ArrayList<>(List.of(
                c + "name=bench", c + "topics=" + topic, c + "group-id=" + group,
                c + "handler=" + (webhook ? InboxProperties.Consumer.WEBHOOK_HANDLER : InsertOneRow.NAME),
                c + "concurrency=" + o.concurrency(), c + "ordering=" + o.ordering().text(),
                c + "retry.initial-delay=200ms", c + "retry.max-delay=2s", c + "retry.multiplier=2",
                c + "retry.jitter=full", c + "retry.max-attempts=10",
                "--spring.r2dbc.pool.max-size=" + Math.max(HarnessRelay.SERVICE_POOL_SIZE,
                        (webhook ? 0 : o.concurrency()) + InboxProperties.Consumer.DEFAULT_MAX_IN_FLIGHT_BATCHES * 2
                                + 4)));
        if (webhook) {
            arguments.add(c + "webhook.url=" + receiver.url("/hook"));
            arguments.add(c + "webhook.timeout=10s");
        }
        return arguments;
    }
}
