package dev.dispatcher.app.outbox;

import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.app.queue.Attempt;
import dev.dispatcher.app.queue.BatchStrategy;
import dev.dispatcher.app.queue.KeyRuns;
import dev.dispatcher.app.store.ClaimedOutboxMessage;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.DispatchResult;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.reactor.circuitbreaker.operator.CircuitBreakerOperator;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The relay's strategy for the claim loop: publish a batch's lanes.
 *
 * <p>A batch is split into lanes: each unit's run in seq order (ordered; the unit is {@code (topic, key)}, or the key
 * with {@code ordering=per-key-across-topics}), and the rows without a key, or every row
 * with {@code ordering=none}, in one unordered lane. Lanes are published {@code publishConcurrency} at a time, each
 * such group in one hand-off ({@link RecordPublisher#publishAll}: one task on the send thread and one continuation
 * per group, not per lane), the next group once the previous one was acknowledged. In an ordered lane, hand-off
 * stops at the first refused record and the rest of the run is not attempted (released without spending attempts),
 * so nothing overtakes a failed record: the kernel's {@link KeyRuns} groups the lanes and owns that rule.
 *
 * <p>Failures stay with the smallest thing that failed ({@link dev.dispatcher.app.kafka.SendFailure.Scope}). A
 * record's own failure costs that record (and holds back its key's later rows). A topic's failure counts only
 * against that topic's breaker ({@link TopicBreakers}): while it is open, the topic's rows are held back without
 * being handed off (given back with a delay and their cause, attempts unspent), and the topic is probed off the
 * send thread. The relay-wide Resilience4j breaker counts each lane as one call, recorded with its own API as
 * {@link CircuitBreakerOperator} would (the operator wraps one publisher call, and a group is one call for many
 * lanes), failed only when the lane met the broker itself unavailable, or was left unpublished because another lane
 * of the hand-off did. A hand-off in which records only timed out and none was published asks the cluster itself
 * ({@link RecordPublisher#probe}): a timeout alone does not say whether one topic or the broker failed, and when the
 * cluster does not answer the relay-wide breaker opens. While that breaker refuses calls the loop claims nothing
 * ({@link #available()}) but probes Kafka every poll interval, half-opening the breaker when it answers.
 *
 * <p>Records are built in the configured {@link dev.dispatcher.app.kafka.RecordFormat} when their lane is planned.
 * The rows the loop dead-letters go to the relay's dead-letter port ({@link RelayDeadLetters}), after every lane of
 * the batch was handed off: a dead-letter send never delays a lane, and counts on no breaker.
 */
final class PublishLanes implements BatchStrategy<ClaimedOutboxMessage> {

    private static final Logger log = LoggerFactory.getLogger(PublishLanes.class);

    private final RecordPublisher publisher;
    /** Hand-offs of this relay waiting for their results: while the relay's breaker is half-open, at most one. */
    private final AtomicInteger handOffsInFlight = new AtomicInteger();
    private final CircuitBreaker breaker;
    private final TopicBreakers topics;
    private final RelaySettings settings;
    private final DispatcherMetrics metrics;
    private final Clock clock;

    /** What the relay-wide circuit breaker records for a lane that met an unavailable broker. */
    private static final RuntimeException KAFKA_UNAVAILABLE =
            new RuntimeException("Kafka unavailable", null, false, false) {
            };

    PublishLanes(RecordPublisher publisher, CircuitBreaker breaker, CircuitBreakerRegistry topicBreakers,
            RelaySettings settings, DispatcherMetrics metrics, Clock clock) {
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.breaker = Objects.requireNonNull(breaker, "breaker");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.topics = new TopicBreakers(topicBreakers, publisher, settings.missingTopicTimeout(), metrics, clock);
    }

    @Override
    public Mono<List<Attempt<ClaimedOutboxMessage>>> work(Batch<ClaimedOutboxMessage> batch) {
        // a full claim is part of a backlog: its records may linger to fill the producer's batches; a partial one
        // means the relay has caught up, and its records leave at once
        RecordPublisher.Pace pace = batch.messages().size() >= settings.loop().batchSize()
                ? RecordPublisher.Pace.BATCHED : RecordPublisher.Pace.PROMPT;
        return Flux.fromIterable(lanes(batch.messages()))
                .buffer(settings.publishConcurrency())
                .concatMap(group -> publish(group, batch, pace))
                .flatMapIterable(attempts -> attempts)
                .collectList();
    }

    /**
     * Whether the loop may claim: not while the relay-wide breaker is open, and while it is half-open only when no
     * hand-off of this relay is in flight. A half-open breaker lets a few lanes through and refuses the rest, which
     * are given back at once; claiming again while the trial lanes wait for their acknowledgements (up to {@code
     * delivery.timeout.ms}) would claim and give back the same rows thousands of times a second.
     */
    @Override
    public boolean available() {
        return switch (breaker.getState()) {
            case CLOSED, DISABLED, METRICS_ONLY -> true;
            case HALF_OPEN -> handOffsInFlight.get() == 0;
            case OPEN, FORCED_OPEN -> false;
        };
    }

    @Override
    public Mono<Void> probe() {
        return publisher.probe(settings.loop().pollInterval().plusSeconds(1))
                .doOnNext(up -> {
                    if (up && breaker.getState() == CircuitBreaker.State.OPEN) {
                        log.info("relay {}: Kafka answers again; half-opening the circuit breaker",
                                settings.loop().workerId());
                        breaker.transitionToHalfOpenState();
                    }
                })
                .then();
    }

    @Override
    public boolean holdsBackWork() {
        return settings.ordering().perKey();
    }

    /**
     * A unit of order: {@code (topic, key)} under {@code ordering=per-key}, the key alone (topic null) under {@code
     * per-key-across-topics}; the claim hands on one run per unit, and a lane is one unit's run.
     */
    private record Unit(@Nullable String topic, String key) {
    }

    /** A unit's run (ordered) or a group of rows that need no order. */
    record Lane(List<ClaimedOutboxMessage> messages, boolean ordered) {
    }

    List<Lane> lanes(List<ClaimedOutboxMessage> batch) {
        return switch (settings.ordering()) {
            case NONE -> List.of(new Lane(batch, false));
            case PER_KEY, PER_KEY_ACROSS_TOPICS -> {
                boolean byTopic = settings.ordering() == Ordering.PER_KEY;
                KeyRuns.Grouped<ClaimedOutboxMessage> grouped = KeyRuns.byKey(batch,
                        m -> m.key() == null ? null : new Unit(byTopic ? m.topic() : null, m.key()));
                List<Lane> lanes = new ArrayList<>(grouped.runs().size() + 1);
                grouped.runs().forEach(run -> lanes.add(new Lane(run, true)));
                if (!grouped.unkeyed().isEmpty()) {
                    lanes.add(new Lane(grouped.unkeyed(), false));
                }
                yield lanes;
            }
        };
    }

    /**
     * Publishes a group of at most {@code publishConcurrency} lanes in one hand-off, after probing the group's topics
     * whose breakers are open and due. Each lane is one call of the relay-wide breaker, as {@link
     * CircuitBreakerOperator} would make it: a lane the breaker refuses is not attempted; a lane with a
     * broker-availability failure, or left unpublished because another lane of the hand-off met one, is a failed
     * call; a lane that handed nothing off (its topics' breakers refused it) gives its permission back; any other
     * lane is a successful one; a cancelled hand-off gives its permissions back.
     */
    private Mono<List<Attempt<ClaimedOutboxMessage>>> publish(List<Lane> group, Batch<ClaimedOutboxMessage> batch,
            RecordPublisher.Pace pace) {
        if (batch.stopping()) {
            return Mono.just(group.stream().flatMap(lane -> notAttempted(lane, "relay shutting down").stream())
                    .toList());
        }
        Set<String> names = new HashSet<>();
        group.forEach(lane -> lane.messages().forEach(m -> names.add(m.topic())));
        return topics.probe(names).flatMap(seenMissing -> handOff(group, pace, seenMissing));
    }

    private Mono<List<Attempt<ClaimedOutboxMessage>>> handOff(List<Lane> group, RecordPublisher.Pace pace,
            Set<String> seenMissing) {
        Instant planned = clock.instant();
        List<LanePlan> plans = new ArrayList<>(group.size());
        List<Attempt<ClaimedOutboxMessage>> attempts = new ArrayList<>();
        for (Lane lane : group) {
            if (!breaker.tryAcquirePermission()) {
                attempts.addAll(notAttempted(lane, "circuit breaker open"));
                continue;
            }
            LanePlan plan = LanePlan.of(lane, topics, planned, seenMissing, settings.format());
            if (plan.handsOff()) {
                plans.add(plan);
            } else {
                breaker.releasePermission();
                attempts.addAll(attempts(plan, Duration.ZERO, planned));
            }
        }
        if (plans.isEmpty()) {
            return Mono.just(attempts);
        }
        long start = breaker.getCurrentTimestamp();
        long startNanos = System.nanoTime();
        AtomicBoolean settled = new AtomicBoolean();
        handOffsInFlight.incrementAndGet();
        return publisher.publishAll(plans.stream().map(LanePlan::records).toList(), pace)
                .doFinally(signal -> handOffsInFlight.decrementAndGet())
                .flatMap(results -> {
                    settled.set(true);
                    Instant now = clock.instant();
                    Duration latency = Duration.ofNanos(System.nanoTime() - startNanos);
                    long elapsed = breaker.getCurrentTimestamp() - start;
                    List<LanePlan.Outcome> outcomes = new ArrayList<>(plans.size());
                    for (int i = 0; i < plans.size(); i++) {
                        outcomes.add(plans.get(i).settle(results.get(i), topics, now, seenMissing, elapsed));
                        attempts.addAll(attempts(plans.get(i), latency, now));
                    }
                    boolean brokerFailed = outcomes.stream().anyMatch(LanePlan.Outcome::brokerFailed);
                    for (LanePlan.Outcome outcome : outcomes) {
                        if (outcome.brokerFailed() || (brokerFailed && !outcome.anySent())) {
                            breaker.onError(elapsed, breaker.getTimestampUnit(), KAFKA_UNAVAILABLE);
                        } else {
                            breaker.onSuccess(elapsed, breaker.getTimestampUnit());
                        }
                    }
                    return timedOutAlone(results) ? askTheCluster().thenReturn(attempts) : Mono.just(attempts);
                })
                .doOnError(e -> {
                    if (settled.compareAndSet(false, true)) {
                        long elapsed = breaker.getCurrentTimestamp() - start;
                        plans.forEach(plan -> {
                            plan.releasePermits();
                            breaker.onError(elapsed, breaker.getTimestampUnit(), e);
                        });
                    }
                })
                .doOnCancel(() -> {
                    if (settled.compareAndSet(false, true)) {
                        plans.forEach(plan -> {
                            plan.releasePermits();
                            breaker.releasePermission();
                        });
                    }
                });
    }

    /** Whether records of the hand-off timed out and none was published: one topic, or the whole broker? */
    private static boolean timedOutAlone(List<List<PublishResult>> results) {
        boolean timedOut = false;
        for (List<PublishResult> lane : results) {
            for (PublishResult r : lane) {
                if (r instanceof PublishResult.Sent) {
                    return false;
                }
                timedOut |= r instanceof PublishResult.Failed f && f.failure().topicUnavailable()
                        && f.failure().cause() == PublishFailureCause.TIMEOUT;
            }
        }
        return timedOut;
    }

    /** Opens the relay-wide breaker when the cluster itself does not answer; never errors. */
    private Mono<Void> askTheCluster() {
        return publisher.probe(settings.loop().pollInterval().plusSeconds(1))
                .doOnNext(up -> {
                    if (!up && breaker.getState() != CircuitBreaker.State.OPEN) {
                        log.warn("relay {}: sends timed out and Kafka does not answer; opening the circuit breaker",
                                settings.loop().workerId());
                        breaker.transitionToOpenState();
                    }
                })
                .then();
    }

    /** The lane's attempts under the run rule ({@link KeyRuns.Run}), with the publish timers of its published rows. */
    private List<Attempt<ClaimedOutboxMessage>> attempts(LanePlan plan, Duration latency, Instant now) {
        Lane lane = plan.lane();
        List<DispatchResult> results = plan.results();
        List<Attempt<ClaimedOutboxMessage>> attempts = new ArrayList<>(results.size());
        KeyRuns.Run run = KeyRuns.run(lane.ordered());
        for (int i = 0; i < results.size(); i++) {
            ClaimedOutboxMessage m = lane.messages().get(i);
            DispatchResult r = run.next(results.get(i));
            if (r instanceof DispatchResult.Published) {
                metrics.publishLatency(latency);
                metrics.commitToPublish(Duration.between(m.createdAt(), now));
            }
            attempts.add(new Attempt.Dispatched<>(m, r));
        }
        return attempts;
    }

    private static List<Attempt<ClaimedOutboxMessage>> notAttempted(Lane lane, String reason) {
        DispatchResult result = new DispatchResult.NotAttempted(reason);
        return lane.messages().stream().<Attempt<ClaimedOutboxMessage>>map(m -> new Attempt.Dispatched<>(m, result))
                .toList();
    }
}
