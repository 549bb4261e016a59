package dev.dispatcher.app.kafka;

import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.FailureKind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * {@link RecordPublisher} on a plain {@link KafkaProducer}, with {@code acks=all} and idempotence forced on.
 *
 * <p>Why not reactor-kafka's {@code KafkaSender} here: a key's run must stop at the first record refused at
 * hand-off, and every record needs its own result. {@code KafkaSender.send} either hands off every record
 * ({@code stopOnError(false)}) or ends with one error that does not say which record failed
 * ({@code stopOnError(true)}), and {@code doOnProducer} refuses {@code send}. So sends use kafka-clients
 * directly, behind this adapter, as DESIGN.md allows; reactor-kafka stays for the inbox receiver.
 *
 * <p>Two producers with the same settings but {@code linger.ms}: records of a full claim wait the configured linger
 * to fill the producer's batches, records of a partial claim leave at once ({@link RecordPublisher.Pace}). A key's
 * order holds across the two: the relay hands a key's next run off only after its previous run was acknowledged
 * and written.
 *
 * <p>Hand-off runs on a dedicated single thread (not a Reactor non-blocking thread: {@code KafkaProducer.send}
 * may block up to {@code max.block.ms}). Producer callbacks only complete a future; results continue on
 * {@link Schedulers#parallel()}.
 */
final class KafkaClientsPublisher implements RecordPublisher {

    /** Sends {@link Pace#BATCHED} records, with the configured {@code linger.ms}. */
    private final Producer<String, byte[]> producer;
    /** Sends {@link Pace#PROMPT} records: {@code linger.ms} 0; the same producer when that is the configured one. */
    private final Producer<String, byte[]> promptProducer;
    private final Admin admin;
    private final Scheduler sendScheduler;

    KafkaClientsPublisher(Map<String, Object> producerProperties, Map<String, Object> adminProperties) {
        Map<String, Object> props = new HashMap<>(producerProperties);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        // One thread, not marked non-blocking (send may block), and handing work to it takes no lock beyond a
        // scheduled executor's queue: a plain single-thread executor's LinkedBlockingQueue parks the submitting
        // (Reactor) thread on its lock when the send thread is taking, which BlockHound reports.
        this.sendScheduler = Schedulers.newBoundedElastic(1, Integer.MAX_VALUE, "dispatcher-kafka-send", 60, true);
        this.producer = new KafkaProducer<>(props);
        this.promptProducer = lingers(props) ? new KafkaProducer<>(withoutLinger(props)) : producer;
        Map<String, Object> adminProps = new HashMap<>(adminProperties);
        adminProps.putIfAbsent(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                props.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG));
        this.admin = Admin.create(adminProps);
    }

    /** Whether {@code props} set a {@code linger.ms} above 0 (Kafka's default is 5 ms). */
    static boolean lingers(Map<String, Object> props) {
        Object linger = props.get(ProducerConfig.LINGER_MS_CONFIG);
        return linger == null || Long.parseLong(linger.toString().trim()) > 0;
    }

    private static Map<String, Object> withoutLinger(Map<String, Object> props) {
        Map<String, Object> prompt = new HashMap<>(props);
        prompt.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        Object clientId = props.get(ProducerConfig.CLIENT_ID_CONFIG);
        if (clientId != null && !clientId.toString().isBlank()) {
            prompt.put(ProducerConfig.CLIENT_ID_CONFIG, clientId + "-prompt"); // client ids name JMX beans
        }
        return prompt;
    }

    @Override
    public Mono<List<DispatchResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace) {
        if (records.isEmpty()) {
            return Mono.just(List.of());
        }
        return publishAll(List.of(new Lane(records, ordered)), pace).map(List::getFirst);
    }

    /** One task on the send thread for all the lanes, and one continuation on a parallel thread. */
    @Override
    public Mono<List<List<DispatchResult>>> publishAll(List<Lane> lanes, Pace pace) {
        if (lanes.isEmpty()) {
            return Mono.just(List.of());
        }
        Producer<String, byte[]> chosen = switch (pace) {
            case BATCHED -> producer;
            case PROMPT -> promptProducer;
        };
        return Mono.fromCallable(() -> handOff(chosen, lanes))
                .subscribeOn(sendScheduler)
                .flatMap(futures -> Mono.fromFuture(CompletableFuture
                        .allOf(futures.stream().flatMap(List::stream).toArray(CompletableFuture[]::new))
                        .thenApply(done -> futures.stream()
                                .map(lane -> lane.stream().map(CompletableFuture::join).toList())
                                .toList())))
                .publishOn(Schedulers.parallel());
    }

    /** Runs on the send thread. Callbacks run on the producer's I/O thread and only complete a future. */
    private static List<List<CompletableFuture<DispatchResult>>> handOff(Producer<String, byte[]> producer,
            List<Lane> lanes) {
        List<List<CompletableFuture<DispatchResult>>> results = new ArrayList<>(lanes.size());
        boolean unavailable = false;
        for (Lane lane : lanes) {
            List<CompletableFuture<DispatchResult>> laneResults = new ArrayList<>(lane.records().size());
            results.add(laneResults);
            boolean stopped = false;
            for (OutboundRecord record : lane.records()) {
                CompletableFuture<DispatchResult> result = new CompletableFuture<>();
                laneResults.add(result);
                if (unavailable) {
                    result.complete(new DispatchResult.NotAttempted("Kafka was unavailable for an earlier record"));
                    continue;
                }
                if (stopped) {
                    result.complete(new DispatchResult.NotAttempted("an earlier record of this lane failed"));
                    continue;
                }
                try {
                    producer.send(toProducerRecord(record), (metadata, error) ->
                            result.complete(error == null ? DispatchResult.PUBLISHED : failed(error)));
                } catch (RuntimeException e) {
                    result.complete(failed(e));
                }
                DispatchResult now = result.getNow(null);
                // Stop a key's run after a refused record (nothing may overtake it), and the whole hand-off after an
                // unavailable cluster: each further send would block this thread up to max.block.ms for nothing.
                unavailable = now instanceof DispatchResult.Failed f && f.kind() == FailureKind.UNAVAILABLE;
                stopped = lane.ordered() && now != null && !(now instanceof DispatchResult.Published);
            }
        }
        return results;
    }

    private static DispatchResult failed(Throwable error) {
        return new DispatchResult.Failed(KafkaFailures.classify(error), KafkaFailures.describe(error));
    }

    private static ProducerRecord<String, byte[]> toProducerRecord(OutboundRecord record) {
        RecordHeaders headers = new RecordHeaders();
        record.headers().forEach((name, value) -> headers.add(name, value.getBytes(StandardCharsets.UTF_8)));
        return new ProducerRecord<>(record.topic(), null, record.key(), record.value(), headers);
    }

    @Override
    public Mono<Boolean> probe(Duration timeout) {
        return Mono.fromFuture(() -> admin
                        .describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()))
                        .nodes().toCompletionStage().toCompletableFuture())
                .map(nodes -> !nodes.isEmpty())
                .timeout(timeout.plusMillis(500))
                .onErrorReturn(false)
                .publishOn(Schedulers.parallel());
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
        if (promptProducer != producer) {
            promptProducer.close(Duration.ofSeconds(10));
        }
        admin.close(Duration.ofSeconds(5));
        sendScheduler.dispose();
    }
}
