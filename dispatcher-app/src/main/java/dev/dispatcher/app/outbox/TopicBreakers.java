package dev.dispatcher.app.outbox;

import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.SendFailure;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.app.observe.TopicTable;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.FailureKind;
import dev.dispatcher.domain.TopicOutage;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Each topic's health as this relay sees it: a Resilience4j circuit breaker per topic (from one registry), the
 * topic's current outage, and what a row of a failing topic gets ({@link TopicOutage}: deferred, its attempt given
 * back, or dead-lettered once the topic has been missing for {@code dispatcher.relay.missing-topic-timeout}).
 *
 * <p>Only failures of a topic's own scope (missing, no leader, too few in-sync replicas, timing out) count against
 * its breaker, one call per lane and topic, so one failing topic never stops another, nor the relay as a whole.
 * While a topic's breaker is open its rows are not handed off; at most once a {@link #PROBE_INTERVAL} a row's
 * arrival asks the publisher whether the topic takes records again ({@link RecordPublisher#checkTopic}, off the
 * send thread), and a yes half-opens the breaker. An outage ends with the topic's next published record. A row is
 * dead-lettered for a missing topic only on a fresh answer (the probe of its own hand-off), never on an older one
 * that may predate the topic's creation.
 *
 * <p>Bounded: at most {@link TopicTable#DEFAULT_CAPACITY} topics are tracked; beyond that, those not met for
 * {@link TopicTable#DEFAULT_IDLE} (whose outage is over by then, {@link #QUIET_GAP}), then the least recently met,
 * are dropped, breaker and all, and start afresh when met again.
 *
 * <p>Thread-safe: batches in flight use it concurrently; each topic's outage is one atomic reference.
 */
final class TopicBreakers {

    private static final Logger log = LoggerFactory.getLogger(TopicBreakers.class);

    /** How often an open topic breaker may ask whether its topic takes records again. */
    static final Duration PROBE_INTERVAL = TopicOutage.MIN_DEFERRAL;
    /**
     * How often a topic whose rows the missing-topic timeout would dead-letter is asked about (each dead letter needs
     * a fresh answer; rows that come between two asks are deferred by {@link TopicOutage#MIN_DEFERRAL}).
     */
    static final Duration OVERDUE_PROBE_INTERVAL = Duration.ofMillis(200);
    /**
     * A topic not seen failing for longer than this starts a new outage: the longest deferral twice over, so a
     * topic that is still missing is seen again within it, and "missing for the timeout" means seen missing
     * throughout, by this instance.
     */
    static final Duration QUIET_GAP = TopicOutage.MAX_DEFERRAL.multipliedBy(2);

    /** What a topic's breaker records for a lane whose rows met the topic unavailable. */
    private static final RuntimeException TOPIC_UNAVAILABLE =
            new RuntimeException("topic unavailable", null, false, false) {
            };

    private final CircuitBreakerRegistry registry;
    private final RecordPublisher publisher;
    private final Duration missingTopicTimeout;
    private final DispatcherMetrics metrics;
    private final Clock clock;
    /** Bounded: topic names come from applications ({@link TopicTable}). */
    private final TopicTable<Topic> topics;

    /** One topic's breaker and current outage (null while healthy). */
    private record Topic(CircuitBreaker breaker, AtomicReference<Outage> outage, AtomicReference<Instant> nextProbe) {
    }

    /**
     * A topic's outage: since when it fails, since when it has been seen missing (null if it exists or nobody
     * knows), when it last failed, and the latest failure.
     */
    private record Outage(Instant since, Instant missingSince, Instant last, SendFailure failure) {

        TopicOutage rule(String topic) {
            return new TopicOutage(topic, failure.description(), since, missingSince);
        }
    }

    TopicBreakers(CircuitBreakerRegistry registry, RecordPublisher publisher, Duration missingTopicTimeout,
            DispatcherMetrics metrics, Clock clock) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.missingTopicTimeout = Objects.requireNonNull(missingTopicTimeout, "missingTopicTimeout");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.topics = TopicTable.dropping("topic circuit breakers", this::dropped,
                TopicTable.evictionsIn(metrics.registry(), "topic_breakers"), clock);
    }

    /**
     * Removes a dropped topic's breaker from the registry, unless the registry holds another one by now (the registry
     * is shared by every source's relay): a topic met again gets a closed breaker and a fresh outage.
     */
    private void dropped(String name, Topic topic) {
        String breaker = topic.breaker().getName();
        registry.find(breaker).filter(b -> b == topic.breaker()).ifPresent(b -> registry.remove(breaker));
    }

    /**
     * A topic's breaker: opens when at least half of the last 10 lanes of the topic (at least 2) met it
     * unavailable; half-opens only when a probe sees the topic take records again, then lets one lane through.
     */
    static CircuitBreakerConfig config() {
        return RelayBreaker.halfOpenedByProbes(2, 1);
    }

    /** The breaker of {@code topic}, named {@code topic:<name>} in the registry. */
    CircuitBreaker breaker(String topic) {
        return topic(topic).breaker();
    }

    /** What a topic's breaker records for a lane that met the topic unavailable. */
    static Throwable unavailable() {
        return TOPIC_UNAVAILABLE;
    }

    private Topic topic(String name) {
        return Objects.requireNonNull(topics.computeIfAbsent(name, n -> new Topic(registry.circuitBreaker("topic:" + n),
                new AtomicReference<>(), new AtomicReference<>(Instant.MIN))), "a dropping table takes every topic");
    }

    /** How many topics this relay holds a breaker and an outage for (for tests). */
    int tracked() {
        return topics.size();
    }

    /**
     * Asks, for each of {@code names} whose breaker is open and whose probe is due, whether the topic takes records
     * again, and half-opens its breaker if so; and, for each whose rows the missing-topic timeout would dead-letter,
     * asks every {@link #OVERDUE_PROBE_INTERVAL}, breaker open or not. Emits the topics this call saw missing: only those rows may be dead-lettered for a
     * missing topic (an older answer may predate the topic's creation, and an operator who creates a topic and
     * replays its rows at once must not see them dead-lettered again). Bounded by the publisher's check; never
     * errors.
     */
    Mono<Set<String>> probe(Collection<String> names) {
        return Flux.fromIterable(names).flatMap(this::probe).collect(Collectors.toSet());
    }

    private Mono<String> probe(String name) {
        return Mono.defer(() -> {
            Topic topic = topics.get(name);
            if (topic == null) {
                return Mono.empty();
            }
            Instant now = clock.instant();
            boolean overdue = deadLetters(topic.outage().get(), now);
            if (!overdue && topic.breaker().getState() != CircuitBreaker.State.OPEN) {
                return Mono.empty();
            }
            Instant due = topic.nextProbe().get();
            if (now.isBefore(due) || !topic.nextProbe().compareAndSet(due,
                    now.plus(overdue ? OVERDUE_PROBE_INTERVAL : PROBE_INTERVAL))) {
                return Mono.empty(); // probed lately, or another batch is probing it now
            }
            return publisher.checkTopic(name).flatMap(refusal -> {
                if (refusal.isPresent() && refusal.get().topicUnavailable()) {
                    failed(topic, refusal.get(), clock.instant());
                    return refusal.get().cause() == PublishFailureCause.UNKNOWN_TOPIC ? Mono.just(name)
                            : Mono.empty();
                }
                takesRecords(name, topic); // or fails each record for good (not authorised): let them meet it
                return Mono.empty();
            });
        });
    }

    /** Whether {@code outage} has a missing topic's rows dead-lettered at {@code now}. */
    private boolean deadLetters(Outage outage, Instant now) {
        return outage != null && outage.missingSince() != null
                && !now.isBefore(outage.missingSince().plus(missingTopicTimeout));
    }

    private void takesRecords(String name, Topic topic) {
        topic.outage().updateAndGet(o -> o == null ? null : new Outage(o.since(), null, o.last(), o.failure()));
        if (topic.breaker().getState() == CircuitBreaker.State.OPEN) {
            log.info("topic {} takes records again; half-opening its circuit breaker", name);
            topic.breaker().transitionToHalfOpenState();
        }
    }

    /**
     * What a row of {@code name} gets when the topic's breaker refused its lane: the topic's outage rule, counted
     * as a publish failure with the outage's cause.
     */
    DispatchResult heldBack(String name, Instant now, Set<String> seenMissing) {
        Outage outage = topic(name).outage().get();
        if (outage == null) { // the outage ended meanwhile (another lane published): the row comes back soon
            metrics.publishFailures(name, PublishFailureCause.OTHER, 1);
            return new DispatchResult.Deferred(TopicOutage.MIN_DEFERRAL,
                    "topic '" + name + "' was failing (its circuit breaker was open)");
        }
        metrics.publishFailures(name, outage.failure().cause(), 1);
        return rule(name, outage, now, seenMissing);
    }

    /**
     * The outage rule's result, but a dead letter for a missing topic only when this hand-off's own probe saw it
     * missing; otherwise the row comes back after the shortest deferral, and that probe decides.
     */
    private DispatchResult rule(String name, Outage outage, Instant now, Set<String> seenMissing) {
        DispatchResult result = outage.rule(name).result(now, missingTopicTimeout);
        if (result instanceof DispatchResult.Failed && !seenMissing.contains(name)) {
            return new DispatchResult.Deferred(TopicOutage.MIN_DEFERRAL, outage.failure().description()
                    + ", missing past the missing-topic timeout; dead-lettered once seen missing again");
        }
        return result;
    }

    /**
     * The domain's result for one publish result of a row of {@code name}: published; not attempted; or failed, as
     * the failure's kind and scope say (a failure of the topic's own scope goes by the topic's outage rule).
     * Updates the topic's outage and counts every failure.
     */
    DispatchResult result(String name, PublishResult result, Instant now, Set<String> seenMissing) {
        return switch (result) {
            case PublishResult.Sent sent -> {
                Topic topic = topics.get(name);
                if (topic != null && topic.outage().get() != null) {
                    topic.outage().set(null);
                }
                yield DispatchResult.PUBLISHED;
            }
            case PublishResult.NotSent notSent -> new DispatchResult.NotAttempted(notSent.reason());
            // the brokers are creating the topic: a routine wait, no failure counted, no outage, no breaker call
            case PublishResult.NotYet notYet -> new DispatchResult.Deferred(TopicOutage.MIN_DEFERRAL, notYet.reason());
            case PublishResult.Failed failed -> {
                SendFailure failure = failed.failure();
                metrics.publishFailures(name, failure.cause(), 1);
                yield switch (failure.kind()) {
                    case PERMANENT -> new DispatchResult.Failed(FailureKind.PERMANENT, failure.description());
                    case TRANSIENT -> new DispatchResult.Failed(FailureKind.TRANSIENT, failure.description());
                    case UNAVAILABLE -> switch (failure.scope()) {
                        case BROKER -> new DispatchResult.Failed(FailureKind.UNAVAILABLE, failure.description());
                        case TOPIC -> rule(name, failed(topic(name), failure, now), now, seenMissing);
                        // nothing classes a record alone as unavailable; if something did, retrying it is safe
                        case RECORD -> new DispatchResult.Failed(FailureKind.TRANSIENT, failure.description());
                    };
                };
            }
        };
    }

    /** Records a failure of the topic's own scope in its outage (starting one if none runs); returns the outage. */
    private static Outage failed(Topic topic, SendFailure failure, Instant now) {
        return topic.outage().updateAndGet(old -> {
            boolean fresh = old == null || Duration.between(old.last(), now).compareTo(QUIET_GAP) > 0;
            Instant since = fresh ? now : old.since();
            Instant missingSince = switch (failure.cause()) {
                case UNKNOWN_TOPIC -> fresh || old.missingSince() == null ? now : old.missingSince();
                // a timeout does not say whether the topic exists: whatever was known stays
                case TIMEOUT -> fresh ? null : old.missingSince();
                // the topic answered: it exists
                case NOT_ENOUGH_REPLICAS, RECORD_TOO_LARGE, AUTHORIZATION, OTHER -> null;
            };
            return new Outage(since, missingSince, now, failure);
        });
    }
}
