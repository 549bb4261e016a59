package dev.dispatcher.app.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Publishes records to Kafka and reports one {@link PublishResult} per record, with failures classified by
 * {@link KafkaFailures} (kind, scope, cause).
 *
 * <p>Threading: hand-off to the producer runs on the publisher's own thread; results are emitted on a Reactor
 * parallel thread, never on the producer's I/O thread. No record waits on that thread for its topic's metadata: a
 * topic is looked up before its records are handed off, off that thread, and a topic that cannot take records
 * ({@link #checkTopic}) has its records reported failed without hand-off.
 */
public interface RecordPublisher extends AutoCloseable {

    /**
     * Hands {@code records} to the producer in list order and waits for each acknowledgement.
     *
     * <p>With {@code ordered}, the records form one key's run: hand-off stops at the first record the producer
     * refuses at once (serialisation, size, an unavailable topic), and the records after it are reported as
     * {@link PublishResult.NotSent}, so nothing overtakes a failed record. Records already handed off keep
     * their order on the partition (idempotent producer). The returned list matches {@code records} index by
     * index; the Mono never errors for a record failure.
     */
    Mono<List<PublishResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace);

    /**
     * Hands several lanes to the producer together, each as {@link #publish} would, and reports one result list per
     * lane, index by index. A record of any lane that finds the broker unavailable ends the hand-off: the records
     * not yet handed off, in every lane, are {@link PublishResult.NotSent} (each would have waited up to
     * {@code max.block.ms} for the same answer); one that finds its topic unavailable ends the hand-off for that
     * topic only.
     *
     * <p>Why: a relay batch carries many keys' runs; published lane by lane, every lane would cost a task on the
     * send thread and another on a Reactor thread, each waiting for a core on a saturated machine. Together, a batch
     * costs one of each. The default publishes the lanes one by one, all at once.
     */
    default Mono<List<List<PublishResult>>> publishAll(List<Lane> lanes, Pace pace) {
        if (lanes.isEmpty()) {
            return Mono.just(List.of());
        }
        return Flux.fromIterable(lanes)
                .flatMapSequential(lane -> publish(lane.records(), lane.ordered(), pace), lanes.size())
                .collectList();
    }

    /** Records handed off together: one key's run ({@code ordered}) or records that need no order. */
    record Lane(List<OutboundRecord> records, boolean ordered) {
        public Lane {
            Objects.requireNonNull(records, "records");
        }
    }

    /**
     * Whether records may wait to fill the producer's batches ({@code linger.ms}) or should leave at once.
     *
     * <p>Why two: a relay that has caught up claims a few rows at a time, and each claim's records then waited the
     * whole linger for company that was not coming; a relay draining a backlog hands off a full batch at once, and
     * without a linger the producer's sender took the first records of each hand-off away in requests of their own.
     */
    enum Pace {
        /** A full claim: part of a backlog, more follows at once; the producer's {@code linger.ms} applies. */
        BATCHED,
        /** A partial claim: the relay has caught up, nothing else is coming; sent without lingering. */
        PROMPT
    }

    /** Whether the cluster answers an admin call within {@code timeout}; never errors. */
    Mono<Boolean> probe(Duration timeout);

    /**
     * Whether {@code topic} can take records now: empty when it can, else why not (missing, no partition with a
     * leader or with enough in-sync replicas, not authorised, no answer in time). Asks the cluster now, not a cache;
     * bounded; never errors. The default says every topic can.
     */
    default Mono<Optional<SendFailure>> checkTopic(String topic) {
        return Mono.just(Optional.empty());
    }

    /**
     * Completes once none of {@code topics} is being created. Where the brokers create topics on first use, a topic
     * that does not exist is created by the producer's own metadata request, and until that ended its records are
     * refused as missing (the relay holds such rows back and sends them a moment later); records that nothing holds
     * back (dead letters) wait here first, so they go to the created topic. Bounded by {@code max.block.ms}; never
     * errors. The default completes at once.
     */
    default Mono<Void> awaitCreated(Collection<String> topics) {
        return Mono.empty();
    }

    /** Flushes and closes the producer and admin client. */
    @Override
    void close();
}
