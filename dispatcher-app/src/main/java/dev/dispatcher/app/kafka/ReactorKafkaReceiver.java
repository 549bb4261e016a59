package dev.dispatcher.app.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.kafka.receiver.KafkaReceiver;
import reactor.kafka.receiver.ReceiverOptions;
import reactor.kafka.receiver.ReceiverRecord;

/**
 * {@link RecordReceiver} on reactor-kafka's {@link KafkaReceiver} (verified on kafka-clients 4.1.2 by
 * {@code ReactorKafkaReceiverIT}).
 *
 * <p>Uses {@code receiveBatch()}: one inner flux per poll, collected into a {@link ReceivedBatch}. Offsets are
 * acknowledged only when the batch's commit runs, so reactor-kafka's periodic and closing commits never cover a
 * record the intake has not stored. reactor-kafka pauses the assigned partitions while the subscriber has no
 * demand and keeps polling for group liveness on its own thread. Records are emitted on reactor-kafka's emitter
 * thread; the consumer's poll loop runs on its own thread, never on an event loop. Keys and header values are
 * handed over as the bytes received ({@link ByteArrayDeserializer}): decoding them here as text would replace what
 * is not UTF-8, or keep a NUL that PostgreSQL refuses, and one such record would stop its partition.
 */
final class ReactorKafkaReceiver implements RecordReceiver {

    /** How long closing waits for the final commit and the group leave. */
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final ReceiverOptions<byte[], byte[]> options;

    ReactorKafkaReceiver(Map<String, Object> consumerProperties, List<String> topics, String groupId) {
        Map<String, Object> props = new HashMap<>(consumerProperties);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        this.options = ReceiverOptions.<byte[], byte[]>create(props)
                .subscription(List.copyOf(topics))
                .closeTimeout(CLOSE_TIMEOUT);
    }

    @Override
    public Flux<ReceivedBatch> receive() {
        return Flux.defer(() -> KafkaReceiver.create(options).receiveBatch())
                .concatMap(Flux::collectList, 1)
                .filter(records -> !records.isEmpty())
                .map(ReactorKafkaReceiver::batch);
    }

    private static ReceivedBatch batch(List<ReceiverRecord<byte[], byte[]>> records) {
        List<ReceivedRecord> received = records.stream().map(ReactorKafkaReceiver::received).toList();
        Mono<Void> commit = Mono.defer(() -> {
            records.forEach(r -> r.receiverOffset().acknowledge());
            // commit() sends every acknowledged offset of every partition, so the last record covers the batch.
            return records.getLast().receiverOffset().commit();
        });
        return new ReceivedBatch(received, commit);
    }

    private static ReceivedRecord received(ReceiverRecord<byte[], byte[]> r) {
        List<ReceivedRecord.Header> headers = new ArrayList<>();
        for (Header h : r.headers()) {
            headers.add(new ReceivedRecord.Header(h.key(), h.value()));
        }
        return new ReceivedRecord(r.topic(), r.partition(), r.offset(), r.key(), headers, r.value());
    }

    @Override
    public String toString() {
        return "ReactorKafkaReceiver" + options.subscriptionTopics();
    }
}
