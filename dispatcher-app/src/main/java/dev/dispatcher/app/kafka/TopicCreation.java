package dev.dispatcher.app.kafka;

import dev.dispatcher.app.observe.TopicTable;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Has a topic that does not exist created where the cluster creates topics on first use, as any producer would: a
 * producer's metadata request always allows the broker to create the topics it names, and a broker with {@code
 * auto.create.topics.enable=true} (Kafka's default) does, if the client may create topics (Create on the topic or
 * the cluster). Where the cluster does not, nothing is asked and the topic stays missing.
 *
 * <p>Which case applies is learned from the cluster, never configured: one broker's {@code
 * auto.create.topics.enable} ({@code describeConfigs}, asked again every {@link #POLICY_TTL}). When that is refused
 * (it needs DescribeConfigs on the cluster; one warning, {@link AdminRefusals}) or unanswered, the producer's own
 * metadata request decides, topic by topic.
 *
 * <p>An attempt is the producer's {@code partitionsFor}, which returns once the topic exists or fails after {@code
 * max.block.ms}; it runs on {@code executor}, never on the caller's thread, at most {@link #MAX_ATTEMPTS} at a
 * time, so topics that will never be created cannot take the executor's threads. A topic an attempt did not create
 * (the brokers do not create topics, or the client may not) is not asked for again within {@link #RETRY_AFTER}; one
 * it created is, within that time, left to the producers' lookup when the admin client still says it is missing.
 * Per-topic state is bounded ({@link TopicTable}). Thread-safe.
 */
final class TopicCreation {

    private static final Logger log = LoggerFactory.getLogger(TopicCreation.class);

    /** How long the brokers' answer stands before it is asked again (a rolling restart may change it). */
    static final Duration POLICY_TTL = Duration.ofMinutes(10);
    /** How long an unanswered question stands (the cluster unreachable). */
    static final Duration UNANSWERED_POLICY_TTL = Duration.ofSeconds(10);
    /** How long a topic an attempt did not create is not asked for again. */
    static final Duration RETRY_AFTER = Duration.ofMinutes(1);
    /** The most attempts under way at once. */
    static final int MAX_ATTEMPTS = 4;

    /** What the brokers say about creating topics on first use. */
    enum Policy {
        CREATES,
        DOES_NOT_CREATE,
        /** The brokers' setting could not be read: the producer's answer decides. */
        UNKNOWN
    }

    /** What becomes of a topic that does not exist. */
    sealed interface Attempt {

        /** An attempt to create it is under way; {@code done} completes, never exceptionally, once it ended. */
        record UnderWay(CompletableFuture<Void> done) implements Attempt {
        }

        /** None now: {@code why} not (empty when the cluster does not create topics or is being asked already). */
        record NotAsked(String why) implements Attempt {
        }

        /**
         * An attempt had it created lately: an admin answer that it does not exist may lag behind (a broker's
         * metadata catching up), so the producers' own lookup decides.
         */
        record Created() implements Attempt {
        }
    }

    private static final Attempt.NotAsked NOT_ASKED = new Attempt.NotAsked("");

    /** A topic's last attempt: under way, or ended at {@code at} with the topic or without it. */
    private sealed interface State {
    }

    private record Creating(CompletableFuture<Void> done) implements State {
    }

    private record Created(long at) implements State {
    }

    private record Failed(long at, String why) implements State {
    }

    /** The brokers' answer and how long it stands. */
    private record PolicyAnswer(Policy policy, Duration stands) {
    }

    /** A question to the brokers, asked at {@code at} (epoch millis). */
    private record Asked(CompletableFuture<PolicyAnswer> answer, long at) {
    }

    private final Admin admin;
    private final Producer<String, byte[]> producer;
    private final Duration timeout;
    private final Executor executor;
    private final AdminRefusals refusals;
    private final Clock clock;
    private final TopicTable<State> topics;
    private final AtomicInteger underWay = new AtomicInteger();
    private final AtomicReference<Asked> asked = new AtomicReference<>();
    /** The last answer logged, so a change is logged once. */
    private final AtomicReference<Policy> logged = new AtomicReference<>();

    /**
     * @param producer the producer whose metadata request asks for a topic
     * @param timeout the bound of the admin requests ({@code max.block.ms}, which also bounds an attempt)
     * @param executor runs the attempts, which block (a bounded-elastic scheduler)
     * @param evictions counts the topics the full table of attempts drops
     */
    TopicCreation(Admin admin, Producer<String, byte[]> producer, Duration timeout, Executor executor,
            AdminRefusals refusals, TopicTable.Evictions evictions, Clock clock) {
        this.admin = Objects.requireNonNull(admin, "admin");
        this.producer = Objects.requireNonNull(producer, "producer");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.refusals = Objects.requireNonNull(refusals, "refusals");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.topics = TopicTable.dropping("topic creations", (topic, state) -> {
        }, evictions, clock);
    }

    /**
     * What becomes of {@code topic}, which does not exist: an attempt to create it (started now, or joined), or
     * none. Asks the brokers first when their answer is not known; never completes exceptionally.
     */
    CompletableFuture<Attempt> attempt(String topic) {
        return policy().thenApply(policy -> policy == Policy.DOES_NOT_CREATE ? NOT_ASKED : start(topic));
    }

    private Attempt start(String topic) {
        long now = clock.millis();
        State known = topics.get(topic);
        if (known != null && standing(known, now)) {
            return attemptOf(known);
        }
        if (underWay.incrementAndGet() > MAX_ATTEMPTS) {
            underWay.decrementAndGet();
            return NOT_ASKED; // asked on a later lookup, once an attempt ended
        }
        Creating mine = new Creating(new CompletableFuture<>());
        State state = topics.compute(topic, (name, old) -> old != null && standing(old, now) ? old : mine);
        if (state != mine) {
            underWay.decrementAndGet();
            return attemptOf(state);
        }
        executor.execute(() -> create(topic, mine));
        return new Attempt.UnderWay(mine.done());
    }

    /** Whether {@code state} still decides: an attempt under way, or one that ended within {@link #RETRY_AFTER}. */
    private static boolean standing(State state, long now) {
        return switch (state) {
            case Creating creating -> true;
            case Created created -> now - created.at() < RETRY_AFTER.toMillis();
            case Failed failed -> now - failed.at() < RETRY_AFTER.toMillis();
        };
    }

    private static Attempt attemptOf(State state) {
        return switch (state) {
            case Creating creating -> new Attempt.UnderWay(creating.done());
            case Created created -> new Attempt.Created();
            case Failed failed -> new Attempt.NotAsked(failed.why());
        };
    }

    /** Runs on the executor: the producer's metadata request, which the brokers answer by creating the topic. */
    private void create(String topic, Creating mine) {
        String failure = null;
        try {
            producer.partitionsFor(topic);
            log.debug("topic {} did not exist; the producer's metadata request had it created", topic);
        } catch (RuntimeException e) {
            failure = why(e);
            log.info("topic {} does not exist and was not created on first use: {}; its rows are held as a missing"
                    + " topic's, and it is asked for again after {}", topic, failure, RETRY_AFTER);
        } finally {
            String why = failure;
            long now = clock.millis();
            State ended = why == null ? new Created(now) : new Failed(now, why);
            topics.compute(topic, (name, old) -> old == null || old == mine ? ended : old);
            underWay.decrementAndGet();
            mine.done().complete(null);
        }
    }

    private String why(RuntimeException e) {
        if (e instanceof TopicAuthorizationException) {
            return "this client may not create it (" + Errors.TOPIC_AUTHORIZATION_FAILED.name()
                    + ": creating a topic on first use needs Create on the topic or the cluster)";
        }
        if (e instanceof TimeoutException) {
            return "the producer's metadata request did not have it created within " + timeout;
        }
        return "the producer's metadata request failed (" + e + ")";
    }

    /** The brokers' answer: known, or asked now (joined by concurrent callers); never exceptionally. */
    private CompletableFuture<Policy> policy() {
        long now = clock.millis();
        Asked current = asked.get();
        if (current == null || expired(current, now)) {
            Asked fresh = new Asked(new CompletableFuture<>(), now);
            if (asked.compareAndSet(current, fresh)) {
                askBrokers().thenAccept(answer -> fresh.answer().complete(answer));
            }
            current = asked.get();
        }
        return current.answer().thenApply(PolicyAnswer::policy);
    }

    private static boolean expired(Asked asked, long now) {
        PolicyAnswer answer = asked.answer().getNow(null);
        return answer != null && now - asked.at() >= answer.stands().toMillis();
    }

    /** One broker's {@code auto.create.topics.enable}; never exceptionally. */
    private CompletableFuture<PolicyAnswer> askBrokers() {
        int ms = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        return TopicReadiness.plain(admin.describeCluster(new DescribeClusterOptions().timeoutMs(ms)).nodes())
                .thenCompose(nodes -> {
                    if (nodes.isEmpty()) {
                        return CompletableFuture.completedFuture(new PolicyAnswer(Policy.UNKNOWN,
                                UNANSWERED_POLICY_TTL));
                    }
                    ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER,
                            nodes.iterator().next().idString());
                    return TopicReadiness.plain(admin.describeConfigs(List.of(broker),
                                    new DescribeConfigsOptions().timeoutMs(ms)).all())
                            .thenApply(configs -> new PolicyAnswer(policy(configs.get(broker)), POLICY_TTL));
                })
                .orTimeout(timeout.multipliedBy(2).plusSeconds(1).toMillis(), TimeUnit.MILLISECONDS)
                .exceptionally(e -> new PolicyAnswer(Policy.UNKNOWN, refusals.refused(
                        "the check of whether its brokers create topics on first use (describeConfigs of a broker,"
                                + " auto.create.topics.enable)", e, "asks for a missing topic with the producer's own"
                                + " metadata request, which creates it where the brokers do")
                        ? POLICY_TTL : UNANSWERED_POLICY_TTL))
                .thenApply(this::logged);
    }

    private static Policy policy(Config config) {
        ConfigEntry entry = config == null ? null : config.get("auto.create.topics.enable");
        if (entry == null || entry.value() == null) {
            return Policy.UNKNOWN;
        }
        return Boolean.parseBoolean(entry.value().trim()) ? Policy.CREATES : Policy.DOES_NOT_CREATE;
    }

    /** Logs a definite answer that differs from the last one logged. */
    private PolicyAnswer logged(PolicyAnswer answer) {
        Policy policy = answer.policy();
        if (policy != Policy.UNKNOWN && logged.getAndSet(policy) != policy) {
            log.info(policy == Policy.CREATES
                    ? "Kafka's brokers create topics on first use (auto.create.topics.enable=true): a topic that does"
                            + " not exist is created by the producer's metadata request when its first records come"
                    : "Kafka's brokers do not create topics on first use (auto.create.topics.enable=false): the rows"
                            + " of a topic that does not exist are held, and dead-lettered after"
                            + " dispatcher.relay.missing-topic-timeout");
        }
        return answer;
    }
}
