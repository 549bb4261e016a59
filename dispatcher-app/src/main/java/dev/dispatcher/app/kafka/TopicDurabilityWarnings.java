package dev.dispatcher.app.kafka;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

/**
 * A {@link RecordPublisher} that checks the {@code min.insync.replicas} of each topic the first time it publishes to
 * it and logs one warning per topic whose acknowledged records may live on a single broker
 * ({@link TopicDurability#weak}).
 *
 * <p>Why at first publish: the relay's topics are whatever the applications write into the outbox, unknown at
 * start-up. Off the send path: noting a topic costs a map lookup on the publishing thread; the admin requests go
 * one at a time through a background subscription (started here, ended by {@link #close()}), and no record waits
 * for them. Bounded: at most {@code maxTopics} topics are remembered, and topics met beyond that go unchecked. A
 * check that fails (the topic missing, no {@code DescribeConfigs} permission, the cluster unreachable) is logged at
 * DEBUG and tried again when the topic is met {@link #RETRY_AFTER} later. Thread-safe.
 */
final class TopicDurabilityWarnings implements RecordPublisher {

    private static final Logger log = LoggerFactory.getLogger(TopicDurabilityWarnings.class);

    static final int MAX_TOPICS = 10_000;
    static final Duration RETRY_AFTER = Duration.ofMinutes(5);
    static final Duration CHECK_TIMEOUT = Duration.ofSeconds(10);
    private static final int QUEUED_CHECKS = 256;
    /** A topic's state once checked: never again. */
    private static final long CHECKED = Long.MAX_VALUE;

    private final RecordPublisher delegate;
    private final Clock clock;
    private final int maxTopics;
    private final AutoCloseable checker;
    /** Per topic: {@link #CHECKED}, or when its check was last queued or failed (epoch millis). */
    private final ConcurrentHashMap<String, Long> topics = new ConcurrentHashMap<>();
    /** Topics waiting for their check; emitted under this object's lock (one producer at a time). */
    private final Sinks.Many<String> queued =
            Sinks.many().unicast().onBackpressureBuffer(Queues.<String>get(QUEUED_CHECKS).get());
    private final Disposable checking;

    /**
     * @param check the cluster's answer about a topic ({@link ClusterCheck#topicDurability})
     * @param warn what to do with a weak topic (log it)
     * @param checker closed with this publisher (the check's admin client)
     */
    TopicDurabilityWarnings(RecordPublisher delegate, Function<String, Mono<TopicDurability>> check,
            Consumer<TopicDurability> warn, AutoCloseable checker, Clock clock, int maxTopics) {
        this.delegate = delegate;
        this.clock = clock;
        this.maxTopics = maxTopics;
        this.checker = checker;
        this.checking = queued.asFlux()
                .concatMap(topic -> check.apply(topic)
                        .doOnNext(durability -> {
                            topics.put(topic, CHECKED);
                            if (durability.weak()) {
                                warn.accept(durability);
                            }
                        })
                        .onErrorResume(e -> {
                            log.debug("cannot check min.insync.replicas of topic {}: {}", topic, e.toString());
                            topics.put(topic, clock.millis());
                            return Mono.empty();
                        }))
                .subscribe();
    }

    /** The publisher of the service: warnings logged, checks on {@code cluster}'s admin client. */
    static TopicDurabilityWarnings logging(RecordPublisher delegate, ClusterCheck cluster) {
        return new TopicDurabilityWarnings(delegate, topic -> cluster.topicDurability(topic, CHECK_TIMEOUT),
                durability -> log.warn(durability.warning()), cluster, Clock.systemUTC(), MAX_TOPICS);
    }

    @Override
    public Mono<List<PublishResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace) {
        return Mono.defer(() -> {
            meetAll(records);
            return delegate.publish(records, ordered, pace);
        });
    }

    @Override
    public Mono<List<List<PublishResult>>> publishAll(List<Lane> lanes, Pace pace) {
        return Mono.defer(() -> {
            lanes.forEach(lane -> meetAll(lane.records()));
            return delegate.publishAll(lanes, pace);
        });
    }

    @Override
    public Mono<Boolean> probe(Duration timeout) {
        return delegate.probe(timeout);
    }

    @Override
    public Mono<Optional<SendFailure>> checkTopic(String topic) {
        return delegate.checkTopic(topic);
    }

    @Override
    public Mono<Void> awaitCreated(Collection<String> topics) {
        return delegate.awaitCreated(topics);
    }

    private void meetAll(List<OutboundRecord> records) {
        String previous = null;
        for (OutboundRecord record : records) {
            if (!record.topic().equals(previous)) {
                previous = record.topic();
                meet(previous);
            }
        }
    }

    /** Queues a check of {@code topic} unless it was checked, is being checked, or failed less than a while ago. */
    private void meet(String topic) {
        Long state = topics.get(topic);
        long now = clock.millis();
        if (state != null && (state == CHECKED || now - state < RETRY_AFTER.toMillis())) {
            return;
        }
        if (state == null && topics.size() >= maxTopics) {
            return;
        }
        boolean mine = state == null ? topics.putIfAbsent(topic, now) == null : topics.replace(topic, state, now);
        if (mine) {
            queue(topic, now);
        }
    }

    private synchronized void queue(String topic, long now) {
        if (queued.tryEmitNext(topic).isFailure()) {
            topics.remove(topic, now); // full (or closed): met again later, queued then
        }
    }

    /** Topics remembered (for tests). */
    int remembered() {
        return topics.size();
    }

    @Override
    public void close() {
        checking.dispose();
        try {
            checker.close();
        } catch (Exception e) {
            log.debug("closing the topic check's admin client failed: {}", e.toString());
        } finally {
            delegate.close();
        }
    }
}
