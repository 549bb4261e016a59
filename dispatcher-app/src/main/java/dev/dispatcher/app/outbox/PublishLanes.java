package dev.dispatcher.app.outbox;

import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.queue.Attempt;
import dev.dispatcher.app.queue.BatchStrategy;
import dev.dispatcher.app.store.ClaimedMessage;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.FailureKind;
import dev.dispatcher.domain.MessageHeaders;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.reactor.circuitbreaker.operator.CircuitBreakerOperator;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The relay's strategy for the claim loop: publish a batch's lanes.
 *
 * <p>A batch is split into lanes: each key's run in seq order (ordered), and the rows without a key, or every row
 * with {@code ordering=none}, in one unordered lane. Lanes are published {@code publishConcurrency} at a time. In an
 * ordered lane, hand-off stops at the first refused record and the rest of the run is not attempted (released
 * without spending attempts), so nothing overtakes a failed record.
 *
 * <p>Each lane's send goes through the Resilience4j circuit breaker ({@link CircuitBreakerOperator}, applied with
 * {@code transformDeferred}): a lane with a broker-availability failure counts as a failed call, others as
 * successes; while the breaker refuses calls the lane is not attempted, and the loop claims nothing
 * ({@link #available()}) but probes Kafka every poll interval, half-opening the breaker when it answers.
 */
final class PublishLanes implements BatchStrategy<ClaimedMessage> {

    private static final Logger log = LoggerFactory.getLogger(PublishLanes.class);

    private final RecordPublisher publisher;
    private final CircuitBreaker breaker;
    private final RelaySettings settings;
    private final DispatcherMetrics metrics;
    private final Clock clock;

    PublishLanes(RecordPublisher publisher, CircuitBreaker breaker, RelaySettings settings, DispatcherMetrics metrics,
            Clock clock) {
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.breaker = Objects.requireNonNull(breaker, "breaker");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public Mono<List<Attempt<ClaimedMessage>>> work(Batch<ClaimedMessage> batch) {
        // a full claim is part of a backlog: its records may linger to fill the producer's batches; a partial one
        // means the relay has caught up, and its records leave at once
        RecordPublisher.Pace pace = batch.messages().size() >= settings.batchSize()
                ? RecordPublisher.Pace.BATCHED : RecordPublisher.Pace.PROMPT;
        return Flux.fromIterable(lanes(batch.messages()))
                .flatMap(lane -> publish(lane, batch, pace), settings.publishConcurrency())
                .flatMapIterable(attempts -> attempts)
                .collectList();
    }

    @Override
    public boolean available() {
        return breaker.getState() != CircuitBreaker.State.OPEN;
    }

    @Override
    public Mono<Void> probe() {
        return publisher.probe(settings.pollInterval().plusSeconds(1))
                .doOnNext(up -> {
                    if (up && breaker.getState() == CircuitBreaker.State.OPEN) {
                        log.info("relay {}: Kafka answers again; half-opening the circuit breaker",
                                settings.workerId());
                        breaker.transitionToHalfOpenState();
                    }
                })
                .then();
    }

    @Override
    public boolean holdsBackWork() {
        return settings.ordering() == Ordering.PER_KEY;
    }

    /** A key's run (ordered) or a group of rows that need no order. */
    record Lane(List<ClaimedMessage> messages, boolean ordered) {
    }

    List<Lane> lanes(List<ClaimedMessage> batch) {
        return switch (settings.ordering()) {
            case NONE -> List.of(new Lane(batch, false));
            case PER_KEY -> {
                Map<String, List<ClaimedMessage>> runs = new LinkedHashMap<>();
                List<ClaimedMessage> unkeyed = new ArrayList<>();
                for (ClaimedMessage m : batch) {
                    if (m.key() == null) {
                        unkeyed.add(m);
                    } else {
                        runs.computeIfAbsent(m.key(), k -> new ArrayList<>()).add(m);
                    }
                }
                List<Lane> lanes = new ArrayList<>(runs.size() + 1);
                runs.values().forEach(run -> {
                    run.sort((a, b) -> Long.compare(a.leased().seq(), b.leased().seq()));
                    lanes.add(new Lane(run, true));
                });
                if (!unkeyed.isEmpty()) {
                    lanes.add(new Lane(unkeyed, false));
                }
                yield lanes;
            }
        };
    }

    private Mono<List<Attempt<ClaimedMessage>>> publish(Lane lane, Batch<ClaimedMessage> batch,
            RecordPublisher.Pace pace) {
        if (batch.stopping()) {
            return Mono.just(notAttempted(lane, "relay shutting down"));
        }
        List<OutboundRecord> records = lane.messages().stream().map(PublishLanes::toRecord).toList();
        return Mono.defer(() -> {
                    long start = System.nanoTime();
                    return publisher.publish(records, lane.ordered(), pace)
                            .map(results -> new Sent(results, Duration.ofNanos(System.nanoTime() - start)));
                })
                // an unavailable cluster is the breaker's failure; the lane's results still decide every message
                .flatMap(sent -> sent.unavailable() ? Mono.error(new KafkaUnavailableException(sent))
                        : Mono.just(sent))
                .transformDeferred(CircuitBreakerOperator.of(breaker))
                .onErrorResume(KafkaUnavailableException.class, e -> Mono.just(e.sent))
                .map(sent -> attempts(lane, sent))
                .onErrorResume(CallNotPermittedException.class,
                        e -> Mono.just(notAttempted(lane, "circuit breaker open")));
    }

    /** A lane's results and how long the send took. */
    private record Sent(List<DispatchResult> results, Duration latency) {
        boolean unavailable() {
            return results.stream().anyMatch(r ->
                    r instanceof DispatchResult.Failed f && f.kind() == FailureKind.UNAVAILABLE);
        }
    }

    private List<Attempt<ClaimedMessage>> attempts(Lane lane, Sent sent) {
        Instant now = clock.instant();
        List<Attempt<ClaimedMessage>> attempts = new ArrayList<>(sent.results().size());
        boolean blocked = false;
        for (int i = 0; i < sent.results().size(); i++) {
            ClaimedMessage m = lane.messages().get(i);
            DispatchResult r = sent.results().get(i);
            if (r instanceof DispatchResult.Published) {
                metrics.publishLatency(sent.latency());
                metrics.commitToPublish(Duration.between(m.createdAt(), now));
            } else if (blocked) {
                r = new DispatchResult.NotAttempted("an earlier message of key " + m.key() + " failed");
            } else {
                blocked = lane.ordered();
            }
            attempts.add(new Attempt.Dispatched<>(m, r));
        }
        return attempts;
    }

    private static List<Attempt<ClaimedMessage>> notAttempted(Lane lane, String reason) {
        DispatchResult result = new DispatchResult.NotAttempted(reason);
        return lane.messages().stream().<Attempt<ClaimedMessage>>map(m -> new Attempt.Dispatched<>(m, result))
                .toList();
    }

    /** The Kafka record of a claimed row: the reserved headers, then the stored ones (which never override them). */
    static OutboundRecord toRecord(ClaimedMessage m) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(MessageHeaders.MESSAGE_ID, m.leased().id().value());
        headers.put(MessageHeaders.EVENT_TYPE, m.eventType());
        headers.put(MessageHeaders.CONTENT_TYPE, m.contentType());
        if (m.correlationId() != null) {
            headers.put(MessageHeaders.CORRELATION_ID, m.correlationId());
        }
        if (m.causationId() != null) {
            headers.put(MessageHeaders.CAUSATION_ID, m.causationId());
        }
        // Stored headers (traceparent among them when the producer sent one) never override the reserved ones.
        m.headers().forEach(headers::putIfAbsent);
        return new OutboundRecord(m.topic(), m.key(), m.payload(), headers);
    }

    /** Recorded by the circuit breaker for a lane with broker-availability failures; carries the lane's results. */
    static final class KafkaUnavailableException extends RuntimeException {

        private final transient Sent sent;

        private KafkaUnavailableException(Sent sent) {
            super("Kafka unavailable", null, false, false);
            this.sent = sent;
        }
    }
}
