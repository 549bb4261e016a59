package dev.dispatcher.app.observe;

import dev.dispatcher.app.store.Claimed;
import dev.dispatcher.domain.Queue;
import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionOutcome;
import dev.dispatcher.domain.TransitionResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records Dispatcher's metrics under their fixed names, and logs every non-applied transition and every message a
 * worker dead-letters (WARN, each event carrying its message's {@link MessageLogContext} as key-value pairs).
 *
 * <ul>
 *   <li>{@code dispatcher.transition.attempts{queue, transition, outcome, durable_status}}</li>
 *   <li>{@code dispatcher.messages{queue, result}}: published, succeeded, failed, dead_lettered, persist_skipped,
 *       persist_rejected, duplicate</li>
 *   <li>gauges {@code dispatcher.queue.depth{queue, status}} and {@code dispatcher.queue.oldest.age{queue}}
 *       (seconds)</li>
 *   <li>timers {@code dispatcher.publish.latency} and {@code dispatcher.commit.to.publish}</li>
 *   <li>{@code dispatcher.lease.expirations{queue}}</li>
 *   <li>{@code dispatcher.inbox.poison{consumer}}: records the inbox stored dead-lettered because they could not be
 *       stored as received</li>
 *   <li>{@code dispatcher.publish.failures{topic, cause}}: records a topic could not take (outbox rows, and
 *       dead-lettered messages their dead-letter topic refused), by the cause classified where the error was seen
 *       ({@link PublishFailureCause}); series for at most {@link #MAX_FAILURE_TOPICS} topics, the failures of
 *       further ones under {@code topic="(other)"}</li>
 * </ul>
 * Every meter carries the {@code source} tag of the database its messages live in ({@code default} for {@code
 * spring.r2dbc.*}): one instance per source. Thread-safe.
 */
public final class DispatcherMetrics {

    private static final Logger log = LoggerFactory.getLogger(DispatcherMetrics.class);

    /** {@code dispatcher.messages} result values. */
    public enum Result {
        PUBLISHED("published"),
        SUCCEEDED("succeeded"),
        FAILED("failed"),
        DEAD_LETTERED("dead_lettered"),
        PERSIST_SKIPPED("persist_skipped"),
        PERSIST_REJECTED("persist_rejected"),
        DUPLICATE("duplicate");

        private final String tag;

        Result(String tag) {
            this.tag = tag;
        }

        public String tag() {
            return tag;
        }

        /** What an applied {@code Deliver} counts as: published (outbox) or succeeded (inbox). */
        public static Result succeeded(Queue queue) {
            return switch (queue) {
                case OUTBOX -> PUBLISHED;
                case INBOX -> SUCCEEDED;
            };
        }
    }

    /**
     * Running totals of one queue since start, for the summary line: kept here as they are counted, so nobody reads
     * the registry back by tag name.
     *
     * @param succeeded messages published (outbox) or handled (inbox)
     * @param retries applied retry transitions
     * @param deadLettered messages dead-lettered by a worker
     * @param notApplied transitions whose outcome was not {@code Applied}
     */
    public record Totals(long succeeded, long retries, long deadLettered, long notApplied) {
    }

    private final Map<Queue, LongAdder[]> totals = new EnumMap<>(Queue.class);

    /** The tags of one {@code dispatcher.transition.attempts} counter. */
    private record TransitionKey(Queue queue, String transition, String outcome, String durableStatus) {
    }

    /**
     * Counters by their tags, registered once: building and registering a counter per message (a meter id with four
     * sorted tags and the registry's lookup) was a few percent of the relay's CPU.
     */
    private final ConcurrentMap<TransitionKey, Counter> transitionCounters = new ConcurrentHashMap<>();

    /** The tag every meter carries: the source its messages live in. */
    public static final String SOURCE_TAG = "source";
    /** The source of {@code spring.r2dbc.*}. */
    public static final String DEFAULT_SOURCE = "default";

    private final MeterRegistry registry;
    private final String source;
    private final Timer publishLatency;
    private final Timer commitToPublish;

    /** The metrics of the {@code default} source. */
    public DispatcherMetrics(MeterRegistry registry) {
        this(registry, DEFAULT_SOURCE);
    }

    /** The metrics of the messages of {@code source}, each meter tagged {@code source=<source>}. */
    public DispatcherMetrics(MeterRegistry registry, String source) {
        this(registry, source, Clock.systemUTC());
    }

    /** {@link #DispatcherMetrics(MeterRegistry, String)} whose per-topic counters age by {@code clock}. */
    public DispatcherMetrics(MeterRegistry registry, String source, Clock clock) {
        this.registry = registry;
        this.source = source;
        this.publishFailures = new TopicTable<>("publish failure counters (source " + source + ")",
                MAX_FAILURE_TOPICS, FAILURE_TOPIC_IDLE, TopicTable.WhenFull.REFUSE_NEW,
                (topic, counters) -> counters.each(registry::remove),
                TopicTable.evictionsIn(registry, "publish_failure_counters"), clock);
        for (Queue queue : Queue.values()) {
            totals.put(queue, new LongAdder[] {new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder()});
        }
        this.publishLatency = Timer.builder("dispatcher.publish.latency")
                .description("Hand-off to Kafka acknowledgement")
                .publishPercentileHistogram()
                .tag(SOURCE_TAG, source)
                .register(registry);
        this.commitToPublish = Timer.builder("dispatcher.commit.to.publish")
                .description("Outbox insert to Kafka acknowledgement")
                .publishPercentileHistogram()
                .tag(SOURCE_TAG, source)
                .register(registry);
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** The source whose messages these metrics count. */
    public String source() {
        return source;
    }

    /**
     * Counts one transition result and, unless applied, logs a warning with worker id, message id, outcome and
     * durable status; {@link #transition(Queue, String, Transition, TransitionResult, Claimed)} without the claimed
     * row, so the warning knows the message by its id alone.
     */
    public void transition(Queue queue, String workerId, Transition requested, TransitionResult result) {
        transition(queue, workerId, requested, result, null);
    }

    /**
     * Counts one transition result of {@code message} (the claimed row it was asked for, or null) and logs a
     * warning if it was not applied (worker id, message id, transition, outcome and durable status), or if it was
     * an applied dead letter (attempts and reason). Both events carry the message's {@link MessageLogContext}: its
     * id, topic, consumer and trace id from {@code message}, and this metrics' source.
     */
    public void transition(Queue queue, String workerId, Transition requested, TransitionResult result,
            Claimed message) {
        transitionCounters.computeIfAbsent(
                        new TransitionKey(queue, requested.tag(), result.outcome().tag(), result.durableStatusTag()),
                        key -> Counter.builder("dispatcher.transition.attempts")
                                .tag("queue", key.queue().tag())
                                .tag("transition", key.transition())
                                .tag("outcome", key.outcome())
                                .tag("durable_status", key.durableStatus())
                                .tag(SOURCE_TAG, source)
                                .register(registry))
                .increment();
        switch (result.outcome()) {
            case TransitionOutcome.Applied applied -> {
                switch (requested) {
                    case Transition.ScheduleRetry retry -> totals.get(queue)[1].increment();
                    case Transition.DeadLetter dead -> deadLettered(queue, workerId, dead, result, message);
                    case Transition.Deliver deliver -> {
                    }
                    case Transition.Release release -> {
                    }
                    case Transition.RenewLease renew -> {
                    }
                }
            }
            case TransitionOutcome.StaleLease stale -> warn(queue, workerId, requested, result, message);
            case TransitionOutcome.Terminal terminal -> warn(queue, workerId, requested, result, message);
            case TransitionOutcome.ConcurrencyLost lost -> warn(queue, workerId, requested, result, message);
            case TransitionOutcome.Missing missing -> warn(queue, workerId, requested, result, message);
        }
    }

    private void warn(Queue queue, String workerId, Transition requested, TransitionResult result, Claimed message) {
        totals.get(queue)[3].increment();
        logContext(result, message).on(log.atWarn()).log("transition not applied: queue={} worker={} message={}"
                        + " transition={} outcome={} durable_status={}", queue.tag(), workerId, result.entry().id(),
                requested.tag(), result.outcome().tag(), result.durableStatusTag());
    }

    private void deadLettered(Queue queue, String workerId, Transition.DeadLetter dead, TransitionResult result,
            Claimed message) {
        MessageLogContext context = logContext(result, message);
        context.on(log.atWarn()).log("message dead-lettered: queue={} worker={} message={} topic={}{} attempts={}"
                        + " reason={}", queue.tag(), workerId, context.messageId(), context.topic(),
                context.consumer() != null ? " consumer=" + context.consumer() : "", result.entry().attempts(),
                dead.reason());
    }

    private MessageLogContext logContext(TransitionResult result, Claimed message) {
        String id = result.entry().id().value();
        return message == null ? new MessageLogContext(id, null, source, null, null)
                : MessageLogContext.of(id, message.topic(), source, message.consumer(), message.headers());
    }

    /** Counts messages with {@code result}. */
    public void messages(Queue queue, Result result, long count) {
        if (count > 0) {
            if (result == Result.succeeded(queue)) {
                totals.get(queue)[0].add(count);
            } else if (result == Result.DEAD_LETTERED) {
                totals.get(queue)[2].add(count);
            }
            Counter.builder("dispatcher.messages")
                    .tag("queue", queue.tag())
                    .tag("result", result.tag())
                    .tag(SOURCE_TAG, source)
                    .register(registry)
                    .increment(count);
        }
    }

    /** The totals of {@code queue} since start. */
    public Totals totals(Queue queue) {
        LongAdder[] t = totals.get(queue);
        return new Totals(t[0].sum(), t[1].sum(), t[2].sum(), t[3].sum());
    }

    /**
     * Why an outbox row could not be published, as the {@code cause} tag of {@code dispatcher.publish.failures}:
     * the fixed values of the metric list in docs/operations.md.
     */
    public enum PublishFailureCause {
        UNKNOWN_TOPIC("unknown_topic"),
        NOT_ENOUGH_REPLICAS("not_enough_replicas"),
        TIMEOUT("timeout"),
        RECORD_TOO_LARGE("record_too_large"),
        AUTHORIZATION("authorization"),
        OTHER("other");

        private final String tag;

        PublishFailureCause(String tag) {
            this.tag = tag;
        }

        public String tag() {
            return tag;
        }
    }

    /**
     * The most topics {@code dispatcher.publish.failures} keeps series for; failures of further topics count under
     * {@link #OTHER_TOPICS} until a topic's series has gone {@link #FAILURE_TOPIC_IDLE} without a count and is
     * removed.
     */
    public static final int MAX_FAILURE_TOPICS = 1_000;
    /** How long a topic's failure series stays without a count before a full table may remove it. */
    public static final Duration FAILURE_TOPIC_IDLE = Duration.ofHours(1);
    /**
     * The {@code topic} tag of the failures of topics beyond {@link #MAX_FAILURE_TOPICS}: not a valid Kafka topic
     * name, so it never stands for a real one.
     */
    public static final String OTHER_TOPICS = "(other)";

    /** One topic's {@code dispatcher.publish.failures} counters, by cause, registered on first use. */
    private final class FailureCounters {
        private final String topic;
        private final AtomicReferenceArray<Counter> byCause =
                new AtomicReferenceArray<>(PublishFailureCause.values().length);

        FailureCounters(String topic) {
            this.topic = topic;
        }

        Counter counter(PublishFailureCause cause) {
            Counter counter = byCause.get(cause.ordinal());
            if (counter == null) {
                // registering twice gives the registry's one counter back: a lost race costs nothing
                counter = Counter.builder("dispatcher.publish.failures")
                        .description("Outbox rows a topic could not take, by cause")
                        .tag("topic", topic)
                        .tag("cause", cause.tag())
                        .tag(SOURCE_TAG, source)
                        .register(registry);
                byCause.set(cause.ordinal(), counter);
            }
            return counter;
        }

        void each(Consumer<Counter> action) {
            for (int i = 0; i < byCause.length(); i++) {
                Counter counter = byCause.get(i);
                if (counter != null) {
                    action.accept(counter);
                }
            }
        }
    }

    /** Failure counters by topic, bounded ({@link #MAX_FAILURE_TOPICS}): topic names come from applications. */
    private final TopicTable<FailureCounters> publishFailures;
    /** The counters of {@link #OTHER_TOPICS}, outside the table so they are never removed. */
    private final FailureCounters otherTopics = new FailureCounters(OTHER_TOPICS);

    /**
     * Counts {@code count} rows of {@code topic} that failed to publish, or were held back because their topic was
     * failing, for {@code cause}: under {@link #OTHER_TOPICS} when {@link #MAX_FAILURE_TOPICS} other topics have
     * series already.
     */
    public void publishFailures(String topic, PublishFailureCause cause, long count) {
        if (count > 0) {
            FailureCounters counters = publishFailures.computeIfAbsent(topic, FailureCounters::new);
            (counters == null ? otherTopics : counters).counter(cause).increment(count);
        }
    }

    /** How many topics have {@code dispatcher.publish.failures} series of their own (for tests). */
    int failureTopics() {
        return publishFailures.size();
    }

    /** Counts claims that took over an expired lease. */
    public void leaseExpirations(Queue queue, long count) {
        if (count > 0) {
            Counter.builder("dispatcher.lease.expirations")
                    .tag("queue", queue.tag())
                    .tag(SOURCE_TAG, source)
                    .register(registry)
                    .increment(count);
        }
    }

    /**
     * Counts {@code count} poison records of inbox consumer {@code consumer}. Called with 0 when the consumer starts,
     * so the series exists from then on: Prometheus' {@code increase()} cannot see the first increment of a series
     * that appears already at 1, and an alert on it would miss the first poison record.
     */
    public void inboxPoison(String consumer, long count) {
        Counter.builder("dispatcher.inbox.poison")
                .description("Inbox records stored dead-lettered because they could not be stored as received")
                .tag("consumer", consumer)
                .tag(SOURCE_TAG, source)
                .register(registry)
                .increment(count);
    }

    public void publishLatency(Duration latency) {
        publishLatency.record(latency);
    }

    public void commitToPublish(Duration latency) {
        if (!latency.isNegative()) {
            commitToPublish.record(latency);
        }
    }

    /**
     * Registers the depth gauges of {@code queue}; the returned holder is updated by whoever polls the backlog.
     */
    public QueueGauges queueGauges(Queue queue) {
        QueueGauges gauges = new QueueGauges();
        Gauge.builder("dispatcher.queue.depth", gauges.pending, AtomicLong::get)
                .tag("queue", queue.tag()).tag("status", "pending").tag(SOURCE_TAG, source)
                .register(registry);
        Gauge.builder("dispatcher.queue.depth", gauges.retryScheduled, AtomicLong::get)
                .tag("queue", queue.tag()).tag("status", "retry_scheduled").tag(SOURCE_TAG, source)
                .register(registry);
        Gauge.builder("dispatcher.queue.oldest.age", gauges.oldestAgeMillis, v -> v.get() / 1000.0)
                .tag("queue", queue.tag()).baseUnit("seconds").tag(SOURCE_TAG, source)
                .register(registry);
        return gauges;
    }

    /** Latest backlog figures of one queue, read by the gauges. */
    public static final class QueueGauges {
        private final AtomicLong pending = new AtomicLong();
        private final AtomicLong retryScheduled = new AtomicLong();
        private final AtomicLong oldestAgeMillis = new AtomicLong();

        public void update(long pending, long retryScheduled, Duration oldestAge) {
            this.pending.set(pending);
            this.retryScheduled.set(retryScheduled);
            this.oldestAgeMillis.set(oldestAge.toMillis());
        }

        public long pending() {
            return pending.get();
        }

        public long retryScheduled() {
            return retryScheduled.get();
        }

        public Duration oldestAge() {
            return Duration.ofMillis(oldestAgeMillis.get());
        }
    }
}
