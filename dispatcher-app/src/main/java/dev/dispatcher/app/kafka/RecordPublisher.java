package dev.dispatcher.app.kafka;

import dev.dispatcher.domain.DispatchResult;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * Publishes records to Kafka and reports one {@link DispatchResult} per record.
 *
 * <p>Threading: hand-off to the producer runs on the publisher's own thread (a send may block it up to
 * {@code max.block.ms}); results are emitted on a Reactor parallel thread, never on the producer's I/O thread.
 */
public interface RecordPublisher extends AutoCloseable {

    /**
     * Hands {@code records} to the producer in list order and waits for each acknowledgement.
     *
     * <p>With {@code ordered}, the records form one key's run: hand-off stops at the first record the producer
     * refuses at once (serialisation, size, an unavailable topic), and the records after it are reported as
     * {@link DispatchResult.NotAttempted}, so nothing overtakes a failed record. Records already handed off keep
     * their order on the partition (idempotent producer). The returned list matches {@code records} index by
     * index; the Mono never errors for a record failure.
     */
    Mono<List<DispatchResult>> publish(List<OutboundRecord> records, boolean ordered);

    /** Whether the cluster answers an admin call within {@code timeout}; never errors. */
    Mono<Boolean> probe(Duration timeout);

    /** Flushes and closes the producer and admin client. */
    @Override
    void close();
}
