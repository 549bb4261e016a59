package dev.dispatcher.app.kafka;

import dev.dispatcher.app.kafka.SendFailure.Scope;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.app.observe.TopicTable;
import dev.dispatcher.domain.FailureKind;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import reactor.core.publisher.Flux;
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
 * directly, behind this adapter, as docs/reference-relay.md describes; reactor-kafka stays for the inbox receiver.
 *
 * <p>Two producers with the same settings but {@code linger.ms}: records of a full claim wait the configured linger
 * to fill the producer's batches, records of a partial claim leave at once ({@link RecordPublisher.Pace}). A key's
 * order holds across the two: the relay hands a key's next run off only after its previous run was acknowledged
 * and written.
 *
 * <p>Hand-off runs on a dedicated single thread (not a Reactor non-blocking thread: {@code KafkaProducer.send}
 * may block up to {@code max.block.ms}). No send waits there for one topic's metadata: a topic is looked up first,
 * off that thread, and a topic that cannot take records is not handed off at all ({@link TopicReadiness}; a topic
 * that does not exist is created there where the brokers create topics on first use, and refused until it is).
 * Producer callbacks only classify and complete a future; results continue on {@link Schedulers#parallel()}. A
 * hand-off's result waits at most {@code max.block.ms} for acknowledgements: a record still unacknowledged then (a
 * partition without a leader, a broker gone) is reported as its topic timing out, so a batch is never held for the
 * producer's whole {@code delivery.timeout.ms}; the producer may still deliver it, and the row, given back, is sent
 * again (at least once). A record larger than its topic takes ({@code max.message.bytes}, read with the topic's lookup) is
 * refused before hand-off as too large: sent, it would not fail at once but be split and retried by the producer
 * until {@code delivery.timeout.ms} whenever it shares a batch with another record of its partition.
 */
final class KafkaClientsPublisher implements RecordPublisher {

    /** Sends {@link Pace#BATCHED} records, with the configured {@code linger.ms}. */
    private final Producer<String, byte[]> producer;
    /** Sends {@link Pace#PROMPT} records: {@code linger.ms} 0; the same producer when that is the configured one. */
    private final Producer<String, byte[]> promptProducer;
    private final Admin admin;
    private final Scheduler sendScheduler;
    private final TopicReadiness topics;
    /** The one warning for the admin calls Kafka refuses this client. */
    private final AdminRefusals refusals = new AdminRefusals();
    /** How long a hand-off waits for acknowledgements: the producer's {@code max.block.ms}. */
    private final Duration ackTimeout;
    /** The result of a record still unacknowledged after {@link #ackTimeout}. */
    private final PublishResult.Failed unacknowledged;
    /**
     * The most a batch of one record adds to its key, value and headers in the record format of magic 2: the batch's
     * header (61 bytes), the record's own varints and attributes (at most 21), the key's and value's lengths and the
     * header count (a varint each).
     */
    static final int BATCH_AND_RECORD_OVERHEAD = 61 + 21 + 3 * 5;
    /** The most bytes a varint takes. */
    private static final int VARINT_MAX = 5;

    /** The producer's {@code max.request.size}: above it the producer refuses a record itself. */
    private final int maxRequestSize;
    /** Whether the producer compresses (then a record's size on the broker is not known before it is sent). */
    private final boolean compressed;

    KafkaClientsPublisher(Map<String, Object> producerProperties, Map<String, Object> adminProperties,
            Function<String, TopicTable.Evictions> evictions) {
        this(producerProperties, adminProperties, evictions, Clock.systemUTC());
    }

    /**
     * @param evictions the counter of the topics a full per-topic table drops, by table (its readiness answers and
     *     creation attempts)
     */
    KafkaClientsPublisher(Map<String, Object> producerProperties, Map<String, Object> adminProperties,
            Function<String, TopicTable.Evictions> evictions, Clock clock) {
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
        this.ackTimeout = maxBlock(props);
        Object maxRequest = props.get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        this.maxRequestSize = maxRequest == null ? 1_048_576 : Integer.parseInt(maxRequest.toString().trim());
        Object compression = props.get(ProducerConfig.COMPRESSION_TYPE_CONFIG);
        this.compressed = compression != null && !compression.toString().trim().equalsIgnoreCase("none");
        this.unacknowledged = new PublishResult.Failed(new SendFailure(FailureKind.UNAVAILABLE, Scope.TOPIC,
                PublishFailureCause.TIMEOUT, "no acknowledgement from Kafka within " + ackTimeout));
        this.topics = new TopicReadiness(admin, promptProducer == producer ? List.of(producer)
                : List.of(producer, promptProducer), ackTimeout,
                task -> Schedulers.boundedElastic().schedule(task), refusals, evictions, clock);
    }

    /** The producer's {@code max.block.ms} (Kafka's default, 60 s, when not set). */
    static Duration maxBlock(Map<String, Object> props) {
        Object maxBlock = props.get(ProducerConfig.MAX_BLOCK_MS_CONFIG);
        return Duration.ofMillis(maxBlock == null ? 60_000 : Long.parseLong(maxBlock.toString().trim()));
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
    public Mono<List<PublishResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace) {
        if (records.isEmpty()) {
            return Mono.just(List.of());
        }
        return publishAll(List.of(new Lane(records, ordered)), pace).map(List::getFirst);
    }

    /**
     * Looks the lanes' topics up ({@link TopicReadiness}: at once when known, else off the send thread), then one
     * task on the send thread for all the lanes, and one continuation on a parallel thread once every record was
     * acknowledged, or {@link #ackTimeout} after the hand-off at the latest.
     */
    @Override
    public Mono<List<List<PublishResult>>> publishAll(List<Lane> lanes, Pace pace) {
        if (lanes.isEmpty()) {
            return Mono.just(List.of());
        }
        Producer<String, byte[]> chosen = switch (pace) {
            case BATCHED -> producer;
            case PROMPT -> promptProducer;
        };
        Set<String> names = new HashSet<>();
        lanes.forEach(lane -> lane.records().forEach(record -> names.add(record.topic())));
        return topics.readiness(names)
                .flatMap(readiness -> withFreshLimits(lanes, readiness))
                .flatMap(limits -> Mono.fromCallable(() -> handOff(chosen, lanes, limits))
                        .subscribeOn(sendScheduler))
                .flatMap(futures -> Mono.fromFuture(CompletableFuture
                                .allOf(futures.stream().flatMap(List::stream).toArray(CompletableFuture[]::new)), true)
                        .timeout(ackTimeout, Mono.empty(), Schedulers.parallel())
                        .then(Mono.fromSupplier(() -> settle(lanes, futures))))
                .publishOn(Schedulers.parallel());
    }

    /**
     * The hand-off's topics and which of them need their records sized at the send.
     *
     * @param readiness each topic's readiness, its {@code max.message.bytes} among it
     * @param oversized the topics a record of the hand-off exceeded in the cache, looked up again: only their records
     *     are sized against the fresh limit at the send; every record of another topic was found within its limit
     */
    private record Limits(Map<String, TopicReadiness.Readiness> readiness, Set<String> oversized) {
    }

    /**
     * {@code readiness}, with the topics looked up again (not from the cache) whose cached {@code max.message.bytes}
     * a record of the hand-off exceeds: a record is refused as too large only on the topic's current limit. Only
     * topics whose limit is below the producer's {@code max.request.size} are checked at all, and each record is
     * sized here once, off the send thread.
     */
    private Mono<Limits> withFreshLimits(List<Lane> lanes, Map<String, TopicReadiness.Readiness> readiness) {
        Set<String> oversized = new HashSet<>();
        for (Lane lane : lanes) {
            for (OutboundRecord record : lane.records()) {
                int limit = limit(readiness.get(record.topic()).maxMessageBytes());
                if (limit != Integer.MAX_VALUE && !oversized.contains(record.topic()) && mayExceed(record, limit)
                        && size(record) > limit) {
                    oversized.add(record.topic()); // the size is only computed for a topic with a lower limit
                }
            }
        }
        if (oversized.isEmpty()) {
            return Mono.just(new Limits(readiness, oversized));
        }
        return Flux.fromIterable(oversized)
                .flatMap(topic -> topics.lookUpNow(topic).map(fresh -> Map.entry(topic, fresh)))
                .collectList()
                .map(fresh -> {
                    Map<String, TopicReadiness.Readiness> merged = new HashMap<>(readiness);
                    fresh.forEach(e -> merged.put(e.getKey(), e.getValue()));
                    return new Limits(merged, oversized);
                });
    }

    /** The size limit Dispatcher checks for a topic: none where the producer's own limit is the lower one. */
    private int limit(int maxMessageBytes) {
        return compressed || maxMessageBytes >= maxRequestSize ? Integer.MAX_VALUE : maxMessageBytes;
    }

    /** An upper bound of {@code record}'s size in a record batch of its own, as the producer estimates it. */
    static int size(OutboundRecord record) {
        return AbstractRecords.estimateSizeInBytesUpperBound(RecordBatch.CURRENT_MAGIC_VALUE, CompressionType.NONE,
                record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8), record.value(),
                headers(record));
    }

    /**
     * Whether {@code record} could be above {@code limit} bytes in a batch of its own, told without encoding it: false
     * guarantees {@link #size} is at most {@code limit} (every char counted as 3 UTF-8 bytes, every length as a
     * 5-byte varint, the batch's and the record's overhead at their largest), so the exact size, which encodes the
     * key and every header, is computed only for records near a limit.
     */
    static boolean mayExceed(OutboundRecord record, int limit) {
        long bound = BATCH_AND_RECORD_OVERHEAD + record.value().length
                + 3L * (record.key() == null ? 0 : record.key().length());
        for (Map.Entry<String, String> header : record.headers().entrySet()) {
            bound += 2L * VARINT_MAX + 3L * (header.getKey().length() + header.getValue().length());
        }
        return bound > limit;
    }

    /** The record's headers for the producer, each value in UTF-8, in the record's order. */
    private static Header[] headers(OutboundRecord record) {
        Header[] headers = new Header[record.headers().size()];
        int i = 0;
        for (Map.Entry<String, String> header : record.headers().entrySet()) {
            headers[i++] = new RecordHeader(header.getKey(), header.getValue().getBytes(StandardCharsets.UTF_8));
        }
        return headers;
    }

    /**
     * Each record's result; one still unacknowledged after {@link #ackTimeout} as its topic timing out, and that
     * topic looked up again before its next hand-off (a topic deleted while its records were in flight would
     * otherwise make the next send wait for its metadata on the send thread).
     */
    private List<List<PublishResult>> settle(List<Lane> lanes, List<List<CompletableFuture<PublishResult>>> futures) {
        List<List<PublishResult>> results = new ArrayList<>(lanes.size());
        for (int i = 0; i < lanes.size(); i++) {
            List<PublishResult> lane = new ArrayList<>(futures.get(i).size());
            for (int j = 0; j < futures.get(i).size(); j++) {
                PublishResult result = futures.get(i).get(j).getNow(null);
                if (result == null) {
                    result = unacknowledged;
                    topics.refuse(lanes.get(i).records().get(j).topic(), unacknowledged.failure());
                }
                lane.add(result);
            }
            results.add(lane);
        }
        return results;
    }

    /**
     * Runs on the send thread. Callbacks run on the producer's I/O thread and only classify and complete a future.
     * A record of a refused topic is not handed off; a topic whose metadata wait failed here is refused for the rest
     * of the hand-off (and, through {@link TopicReadiness#refuse}, for later ones), and the broker found unavailable
     * ends the hand-off: each further send would block this thread up to {@code max.block.ms} for nothing.
     */
    private List<List<CompletableFuture<PublishResult>>> handOff(Producer<String, byte[]> producer, List<Lane> lanes,
            Limits limits) {
        Map<String, TopicReadiness.Readiness> readiness = limits.readiness();
        List<List<CompletableFuture<PublishResult>>> results = new ArrayList<>(lanes.size());
        Map<String, SendFailure> refused = new HashMap<>();
        Map<String, PublishResult.NotYet> creating = new HashMap<>();
        readiness.forEach((topic, r) -> r.refusal().ifPresent(failure -> {
            if (r.creating()) {
                creating.put(topic, new PublishResult.NotYet(failure.description()));
            } else {
                refused.put(topic, failure);
            }
        }));
        boolean brokerDown = false;
        for (Lane lane : lanes) {
            List<CompletableFuture<PublishResult>> laneResults = new ArrayList<>(lane.records().size());
            results.add(laneResults);
            boolean stopped = false;
            for (OutboundRecord record : lane.records()) {
                CompletableFuture<PublishResult> result = new CompletableFuture<>();
                laneResults.add(result);
                SendFailure refusal = refused.get(record.topic());
                PublishResult.NotYet notYet = creating.get(record.topic());
                if (brokerDown) {
                    result.complete(new PublishResult.NotSent("the broker was unavailable for an earlier record"));
                } else if (stopped) {
                    result.complete(new PublishResult.NotSent("an earlier record of this lane failed"));
                } else if (refusal != null) {
                    result.complete(new PublishResult.Failed(refusal));
                } else if (notYet != null) {
                    result.complete(notYet);
                } else {
                    send(producer, record, limits.oversized().contains(record.topic())
                            ? OptionalInt.of(readiness.get(record.topic()).maxMessageBytes()) : OptionalInt.empty(),
                            result);
                }
                PublishResult now = result.getNow(null);
                if (now instanceof PublishResult.Failed f && refusal == null) {
                    // failed within send(): the metadata wait (or the buffer's) already cost this thread its bound
                    brokerDown = brokerDown || f.failure().brokerUnavailable();
                    if (f.failure().topicUnavailable()) {
                        refused.put(record.topic(), f.failure());
                        topics.refuse(record.topic(), f.failure());
                    }
                }
                // nothing of a key's run may overtake a record that was refused
                stopped = stopped || (lane.ordered() && now != null && !(now instanceof PublishResult.Sent));
            }
        }
        return results;
    }

    /**
     * Hands {@code record} to the producer; first, with {@code freshLimit} (its topic's limit looked up again for this
     * hand-off), refuses it as too large when it is above that limit.
     */
    private void send(Producer<String, byte[]> producer, OutboundRecord record, OptionalInt freshLimit,
            CompletableFuture<PublishResult> result) {
        int maxMessageBytes = freshLimit.orElse(Integer.MAX_VALUE); // no fresh limit: nothing to check here
        if (limit(maxMessageBytes) != Integer.MAX_VALUE && mayExceed(record, maxMessageBytes)) {
            int size = size(record);
            if (size > maxMessageBytes) {
                // the broker would refuse it, and the producer, splitting its batch again and again, would retry it
                // until delivery.timeout.ms when it shares a batch (batch.size above the topic's limit)
                result.complete(new PublishResult.Failed(KafkaFailures.classify(new RecordTooLargeException("The "
                        + "record is " + size + " bytes when serialized, above the " + maxMessageBytes + " bytes topic '"
                        + record.topic() + "' takes (max.message.bytes)"), record.topic())));
                return;
            }
        }
        try {
            producer.send(toProducerRecord(record), (metadata, error) -> {
                if (error == null) {
                    result.complete(PublishResult.SENT);
                    return;
                }
                SendFailure failure = KafkaFailures.classify(error, record.topic());
                if (failure.topicUnavailable()) {
                    topics.refuse(record.topic(), failure); // gone or failing: look it up before the next send
                }
                result.complete(new PublishResult.Failed(failure));
            });
        } catch (RuntimeException e) {
            result.complete(new PublishResult.Failed(KafkaFailures.classify(e, record.topic())));
        }
    }

    private static ProducerRecord<String, byte[]> toProducerRecord(OutboundRecord record) {
        return new ProducerRecord<>(record.topic(), null, record.key(), record.value(),
                new RecordHeaders(headers(record)));
    }

    @Override
    public Mono<Optional<SendFailure>> checkTopic(String topic) {
        return topics.lookUpNow(topic).map(TopicReadiness.Readiness::refusal).publishOn(Schedulers.parallel());
    }

    @Override
    public Mono<Void> awaitCreated(Collection<String> topics) {
        return this.topics.created(Set.copyOf(topics)).publishOn(Schedulers.parallel());
    }

    @Override
    public Mono<Boolean> probe(Duration timeout) {
        return Mono.fromFuture(() -> admin
                        .describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()))
                        .nodes().toCompletionStage().toCompletableFuture())
                .map(nodes -> !nodes.isEmpty())
                .timeout(timeout.plusMillis(500))
                // a refusal is an answer: the cluster is up, this client just may not describe it
                .onErrorResume(e -> Mono.just(refusals.refused("describeCluster", e, "takes the refusal as the"
                        + " cluster's answer that it is up")))
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
