package dev.dispatcher.app.kafka;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The Kafka side of one inbox consumer, behind one small adapter (reactor-kafka today; a kafka-clients poll loop
 * could replace it without touching the intake).
 *
 * <p>{@link #receive()} subscribes the consumer group when subscribed to and closes the consumer when cancelled;
 * every subscription is a fresh consumer. Batches are emitted one poll at a time and only on demand: while the
 * subscriber requests nothing the adapter keeps the group membership alive but fetches nothing (backpressure).
 * Offsets are committed only through {@link ReceivedBatch#commit()}; records of a batch that was never committed
 * are delivered again to whoever owns the partition next.
 */
public interface RecordReceiver {

    /** Polled batches, in partition order; lazy, one consumer per subscription. */
    Flux<ReceivedBatch> receive();

    /**
     * A receiver on reactor-kafka for {@code topics} in consumer group {@code groupId}; the group id, manual
     * commits and the byte-array deserializers are forced, {@code auto.offset.reset} defaults to {@code earliest}.
     *
     * @param consumerProperties kafka-clients consumer settings (Boot's {@code spring.kafka.consumer.*})
     */
    static RecordReceiver reactorKafka(Map<String, Object> consumerProperties, List<String> topics, String groupId) {
        return new ReactorKafkaReceiver(consumerProperties, topics, groupId);
    }

    /**
     * The records of one poll and the commit of their offsets.
     *
     * @param records the records, never empty
     * @param commit commits the offsets after the last record of every partition in this batch; lazy
     */
    record ReceivedBatch(List<ReceivedRecord> records, Mono<Void> commit) {

        public ReceivedBatch {
            records = List.copyOf(records);
            Objects.requireNonNull(commit, "commit");
        }
    }
}
