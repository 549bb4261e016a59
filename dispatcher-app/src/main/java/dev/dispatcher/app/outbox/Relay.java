package dev.dispatcher.app.outbox;

import dev.dispatcher.app.kafka.DeadLetterPublisher;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.queue.ClaimLoop;
import dev.dispatcher.app.queue.DeadLetterPort;
import dev.dispatcher.app.store.ClaimedOutboxMessage;
import dev.dispatcher.app.store.OutboxStore;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import java.time.Clock;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The outbox relay: the leased-queue kernel ({@link ClaimLoop}) on the outbox, with {@link PublishLanes} as its
 * strategy. Claims pull-based batches (at most {@code maxInFlightBatches} unfinished), publishes their lanes with
 * bounded concurrency, writes each batch's classified transitions in one statement, renews leases, honours the
 * cluster-wide pause switch, the relay-wide circuit breaker and one breaker per topic, and drains on {@link #stop()}: in-flight batches finish and
 * write their transitions, lanes not yet handed off are released. The loop's gating is {@link ClaimLoop}'s.
 */
public final class Relay {

    private static final Logger log = LoggerFactory.getLogger(Relay.class);

    private final RelaySettings settings;
    private final ClaimLoop<ClaimedOutboxMessage> loop;
    private final Scheduler scheduler;
    private final boolean ownScheduler;

    /** A relay on its own single-thread loop scheduler and the system clock, with topic breakers of its own. */
    public Relay(OutboxStore store, RecordPublisher publisher, RelaySettings settings, CircuitBreaker breaker,
            DispatcherMetrics metrics, BooleanSupplier paused) {
        this(store, publisher, settings, breaker, CircuitBreakerRegistry.of(TopicBreakers.config()), metrics, paused);
    }

    /**
     * A relay on its own single-thread loop scheduler and the system clock, whose per-topic breakers live in
     * {@code topicBreakers} (configured with {@link #topicBreakerConfig()}; one breaker per topic, named
     * {@code topic:<name>}), so the application holds them.
     */
    public Relay(OutboxStore store, RecordPublisher publisher, RelaySettings settings, CircuitBreaker breaker,
            CircuitBreakerRegistry topicBreakers, DispatcherMetrics metrics, BooleanSupplier paused) {
        this(store, publisher, settings, breaker, topicBreakers, metrics, paused,
                Schedulers.newSingle("dispatcher-relay-" + settings.loop().workerId()), Clock.systemUTC(), true);
    }

    /** A relay whose loop turns and times its waits on {@code scheduler}, and reads {@code clock} for latency. */
    public Relay(OutboxStore store, RecordPublisher publisher, RelaySettings settings, CircuitBreaker breaker,
            DispatcherMetrics metrics, BooleanSupplier paused, Scheduler scheduler, Clock clock) {
        this(store, publisher, settings, breaker, CircuitBreakerRegistry.of(TopicBreakers.config()), metrics, paused,
                scheduler, clock, false);
    }

    private Relay(OutboxStore store, RecordPublisher publisher, RelaySettings settings, CircuitBreaker breaker,
            CircuitBreakerRegistry topicBreakers, DispatcherMetrics metrics, BooleanSupplier paused,
            Scheduler scheduler, Clock clock, boolean ownScheduler) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.scheduler = scheduler;
        this.ownScheduler = ownScheduler;
        this.loop = new ClaimLoop<>("relay", store,
                new PublishLanes(publisher, breaker, topicBreakers, settings, metrics, clock),
                deadLetters(publisher, settings, metrics), settings.loop(), metrics, paused, scheduler);
    }

    /** The relay's dead-letter topic, or none: rows are then dead-lettered in the table alone. */
    private static DeadLetterPort<ClaimedOutboxMessage> deadLetters(RecordPublisher publisher, RelaySettings settings,
            DispatcherMetrics metrics) {
        return settings.deadLetterTopic() == null ? DeadLetterPort.none()
                : new RelayDeadLetters(settings.deadLetterTopic(), settings.format(),
                        new DeadLetterPublisher(publisher, "relay " + settings.loop().workerId(), metrics));
    }

    /** The configuration of the per-topic breakers' registry. */
    public static CircuitBreakerConfig topicBreakerConfig() {
        return TopicBreakers.config();
    }

    /** Starts claiming. Idempotent. */
    public void start() {
        loop.start();
        log.info("relay {}: records in format {}, dead-letter topic {}", settings.loop().workerId(), settings.format(),
                settings.deadLetterTopic() == null ? "off" : settings.deadLetterTopic());
    }

    /** Signals new work (a notification arrived, or a listener reconnected). Cheap, callable from any thread. */
    public void wake() {
        loop.wake();
    }

    /** Signals that the pause switch changed, so a paused relay looks again at once. */
    public void pauseChanged() {
        loop.pauseChanged();
    }

    /** Stops claiming and drains (see {@link ClaimLoop#stop()}); {@link #start()} may run it again. */
    public Mono<Void> stop() {
        return loop.stop();
    }

    /** Releases the loop's own scheduler, once stopped for good (the bean's destruction). */
    public void close() {
        if (ownScheduler) {
            scheduler.dispose();
        }
    }

    /** Whether the relay has been asked to stop. */
    public boolean isStopping() {
        return loop.isStopping();
    }

    public RelaySettings settings() {
        return settings;
    }
}
