package dev.dispatcher.app.kafka;

import dev.dispatcher.app.kafka.SendFailure.Scope;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.domain.FailureKind;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.protocol.Errors;
import reactor.core.publisher.Mono;

/**
 * Which topics the producers can take records for without waiting for metadata on the send thread, and why the
 * others cannot.
 *
 * <p>Why: {@code KafkaProducer.send} waits on the calling thread for its topic's metadata, up to {@code
 * max.block.ms}, and a topic that does not exist is that whole wait. The relay hands off on one send thread, so one
 * missing topic held every other topic's records back for {@code max.block.ms} on each hand-off. Here a topic is
 * looked up off that thread first: the admin client describes it (a missing topic answers {@code
 * UNKNOWN_TOPIC_OR_PARTITION} within a round trip; a topic none of whose partitions has a leader, or enough in-sync
 * replicas for {@code acks=all}, is refused too; its {@code max.message.bytes} is read on the way), and a topic that
 * can take records is then looked up by each producer ({@code partitionsFor}) on a bounded-elastic thread, so the
 * producers hold its metadata before its first send. Each lookup is bounded by {@code timeout}.
 *
 * <p>Answers are cached per topic: a ready topic stays ready until a send finds its metadata gone ({@link #refuse}:
 * a topic deleted while rows wait costs that one send up to {@code max.block.ms} on the send thread, once); a
 * refusal holds for {@link #REFUSAL_TTL}, so a topic created meanwhile is sent to soon after. Thread-safe:
 * concurrent callers share one lookup per topic.
 */
final class TopicReadiness {

    /** How long a refusal is answered from the cache before the topic is looked up again. */
    static final Duration REFUSAL_TTL = Duration.ofSeconds(1);

    private final Admin admin;
    private final List<Producer<String, byte[]>> producers;
    private final Duration timeout;
    private final Executor lookups;
    private final Clock clock;
    private final ConcurrentMap<String, CompletableFuture<Answer>> topics = new ConcurrentHashMap<>();

    /**
     * What a lookup says of one topic.
     *
     * @param refusal empty when the topic can take records, else why not
     * @param maxMessageBytes the largest record batch the topic takes ({@code max.message.bytes}, the broker's
     *     {@code message.max.bytes} unless the topic sets its own), {@link Integer#MAX_VALUE} when unknown
     */
    record Readiness(Optional<SendFailure> refusal, int maxMessageBytes) {

        static Readiness refused(SendFailure failure) {
            return new Readiness(Optional.of(failure), Integer.MAX_VALUE);
        }
    }

    /** A lookup's answer and when it was given. */
    private record Answer(Readiness readiness, Instant at) {
    }

    /** What the topic's configuration says: the parts a lookup uses. */
    private record Limits(int minInSyncReplicas, int maxMessageBytes) {
        static final Limits UNKNOWN = new Limits(1, Integer.MAX_VALUE);
    }

    /**
     * @param producers the producers that must hold a ready topic's metadata
     * @param timeout the bound of each admin request and producer lookup ({@code max.block.ms})
     * @param lookups runs the producers' blocking lookups (a bounded-elastic scheduler)
     */
    TopicReadiness(Admin admin, List<Producer<String, byte[]>> producers, Duration timeout, Executor lookups,
            Clock clock) {
        this.admin = admin;
        this.producers = List.copyOf(producers);
        this.timeout = timeout;
        this.lookups = lookups;
        this.clock = clock;
    }

    /**
     * For each of {@code names}: whether the producers can take its records now (else why not), and its record size
     * limit. Cached answers come at once; the others after their lookup (bounded by the timeout). Never errors.
     */
    Mono<Map<String, Readiness>> readiness(Set<String> names) {
        return Mono.defer(() -> {
            Instant now = clock.instant();
            Map<String, CompletableFuture<Answer>> answers = new HashMap<>(names.size() * 2);
            boolean settled = true;
            for (String name : names) {
                CompletableFuture<Answer> answer = answer(name, now);
                answers.put(name, answer);
                settled &= answer.isDone();
            }
            if (settled) {
                return Mono.just(refusals(answers));
            }
            return Mono.fromFuture(CompletableFuture.allOf(answers.values().toArray(CompletableFuture[]::new)), true)
                    .then(Mono.fromSupplier(() -> refusals(answers)));
        });
    }

    /**
     * Looks {@code topic} up now (joining a lookup under way), not from the cache, and caches the answer: for a probe,
     * whose answer may decide that the topic's rows are dead-lettered, and before a record is refused as larger than
     * the topic takes (an operator may just have raised the topic's limit to let it through). Never errors.
     */
    Mono<Readiness> lookUpNow(String topic) {
        return Mono.defer(() -> Mono.fromFuture(topics.compute(topic,
                        (name, known) -> known != null && !known.isDone() ? known : lookUp(name)), true))
                .map(Answer::readiness);
    }

    /**
     * Records that a send of {@code topic} failed for want of its metadata (or found the topic gone), so records
     * handed off later are refused at once instead of each waiting on the send thread; looked up again after
     * {@link #REFUSAL_TTL}. Cheap: safe on the producer's I/O thread.
     */
    void refuse(String topic, SendFailure failure) {
        topics.put(topic, CompletableFuture.completedFuture(new Answer(Readiness.refused(failure), clock.instant())));
    }

    private static Map<String, Readiness> refusals(Map<String, CompletableFuture<Answer>> answers) {
        Map<String, Readiness> refusals = new HashMap<>(answers.size() * 2);
        answers.forEach((name, answer) -> refusals.put(name, answer.join().readiness()));
        return refusals;
    }

    private CompletableFuture<Answer> answer(String topic, Instant now) {
        return topics.compute(topic, (name, known) -> known != null && !expired(known, now) ? known : lookUp(name));
    }

    private static boolean expired(CompletableFuture<Answer> known, Instant now) {
        Answer answer = known.getNow(null);
        return answer != null && answer.readiness().refusal().isPresent()
                && !now.isBefore(answer.at().plus(REFUSAL_TTL));
    }

    /** Starts the lookup of {@code topic}: the admin request is only queued here; nothing blocks the caller. */
    private CompletableFuture<Answer> lookUp(String topic) {
        int ms = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        CompletableFuture<TopicDescription> described = plain(admin
                .describeTopics(List.of(topic), new DescribeTopicsOptions().timeoutMs(ms)).allTopicNames()
                .thenApply(all -> all.get(topic)));
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        CompletableFuture<Limits> limits = plain(admin
                .describeConfigs(List.of(resource), new DescribeConfigsOptions().timeoutMs(ms)).all()
                .thenApply(configs -> limits(configs.get(resource))))
                .exceptionally(e -> Limits.UNKNOWN); // no right to read configs: the send itself will say
        return described.thenCombine(limits, (description, known) -> unusable(topic, description,
                        known.minInSyncReplicas()).map(Readiness::refused)
                        .orElse(new Readiness(Optional.empty(), known.maxMessageBytes())))
                .thenCompose(readiness -> readiness.refusal().isPresent()
                        ? CompletableFuture.completedFuture(readiness)
                        : CompletableFuture.supplyAsync(() -> lookUpInProducers(topic, readiness), lookups))
                .orTimeout(timeout.multipliedBy(2).plusSeconds(1).toMillis(), TimeUnit.MILLISECONDS)
                .handle((readiness, error) -> new Answer(error == null ? readiness
                        : Readiness.refused(KafkaFailures.classify(error, topic)), clock.instant()));
    }

    /**
     * {@code future} as a plain {@link CompletableFuture}. Why: Kafka's own futures refuse completion from outside,
     * so {@code orTimeout} on anything derived from them never fires (an admin call waiting for a node of an
     * unreachable cluster then took its 60 s default instead of the bound).
     */
    private static <T> CompletableFuture<T> plain(KafkaFuture<T> future) {
        CompletableFuture<T> plain = new CompletableFuture<>();
        future.whenComplete((value, error) -> {
            if (error == null) {
                plain.complete(value);
            } else {
                plain.completeExceptionally(error);
            }
        });
        return plain;
    }

    /** Runs on a bounded-elastic thread: each producer fetches the topic's metadata if it has none (bounded). */
    private Readiness lookUpInProducers(String topic, Readiness readiness) {
        producers.forEach(producer -> producer.partitionsFor(topic));
        return readiness;
    }

    private static Limits limits(Config config) {
        return config == null ? Limits.UNKNOWN : new Limits(
                intConfig(config, TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, 1),
                intConfig(config, TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.MAX_VALUE));
    }

    private static int intConfig(Config config, String name, int absent) {
        ConfigEntry entry = config.get(name);
        return entry == null || entry.value() == null ? absent : Integer.parseInt(entry.value().trim());
    }

    /**
     * Why {@code topic} can take no record at all, if so: no partition has a leader, or none has the in-sync
     * replicas an {@code acks=all} write needs (the topic's {@code min.insync.replicas}, at most its replication
     * factor, as the broker counts). A topic with some usable partitions is usable: a record bound for a bad
     * partition fails on its own and only its key waits.
     */
    static Optional<SendFailure> unusable(String topic, TopicDescription description, int minInSync) {
        boolean anyLeader = false;
        for (TopicPartitionInfo partition : description.partitions()) {
            if (partition.leader() != null) {
                anyLeader = true;
                if (partition.isr().size() >= Math.min(minInSync, Math.max(1, partition.replicas().size()))) {
                    return Optional.empty();
                }
            }
        }
        if (anyLeader) {
            return Optional.of(new SendFailure(FailureKind.UNAVAILABLE, Scope.TOPIC,
                    PublishFailureCause.NOT_ENOUGH_REPLICAS, "topic '" + topic + "' has no partition with "
                    + minInSync + " in-sync replicas (" + Errors.NOT_ENOUGH_REPLICAS.name() + ")"));
        }
        return Optional.of(new SendFailure(FailureKind.UNAVAILABLE, Scope.TOPIC, PublishFailureCause.OTHER,
                "topic '" + topic + "' has no partition with a leader (" + Errors.LEADER_NOT_AVAILABLE.name() + ")"));
    }
}
