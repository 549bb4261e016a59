package dev.dispatcher.app.kafka;

import dev.dispatcher.app.kafka.SendFailure.Scope;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.app.observe.TopicTable;
import dev.dispatcher.domain.FailureKind;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
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
import org.jspecify.annotations.Nullable;
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
 * <p>A topic that does not exist is created where the brokers create topics on first use ({@link TopicCreation}:
 * the producer's own metadata request, off every caller's thread): until that ends its readiness says it is being
 * created ({@link Readiness#creating}: its records wait, they do not fail), and the answer is looked up again as
 * soon as the attempt ended ({@link #created} waits for it). Where the brokers do not create topics it is refused
 * as missing.
 *
 * <p>The admin calls may be refused to a principal granted only what producing needs ({@link AdminRefusals}: one
 * warning): without DescribeConfigs a topic's limits are unknown and the broker's answer to each send decides;
 * without Describe on a topic the producers' own lookup decides whether it takes records (a topic they may not
 * describe either is refused as not authorised).
 *
 * <p>Answers are cached per topic, at most {@link TopicTable#DEFAULT_CAPACITY} topics (topic names come from the
 * applications): a ready topic stays ready until a send finds its metadata gone ({@link #refuse}: a topic deleted
 * while rows wait costs that one send up to {@code max.block.ms} on the send thread, once); a refusal holds for
 * {@link #REFUSAL_TTL}, so a topic created meanwhile is sent to soon after. Thread-safe: concurrent callers share
 * one lookup per topic.
 */
final class TopicReadiness {

    /** How long a refusal is answered from the cache before the topic is looked up again. */
    static final Duration REFUSAL_TTL = Duration.ofSeconds(1);

    private final Admin admin;
    private final List<Producer<String, byte[]>> producers;
    private final Duration timeout;
    private final Executor lookups;
    private final Clock clock;
    private final AdminRefusals refusals;
    private final TopicCreation creation;
    private final TopicTable<CompletableFuture<Answer>> topics;

    /**
     * What a lookup says of one topic.
     *
     * @param refusal empty when the topic can take records, else why not
     * @param maxMessageBytes the largest record batch the topic takes ({@code max.message.bytes}, the broker's
     *     {@code message.max.bytes} unless the topic sets its own), {@link Integer#MAX_VALUE} when unknown
     * @param creating whether the refusal is for a topic the brokers are creating on first use, which takes records
     *     as soon as that ended
     */
    record Readiness(Optional<SendFailure> refusal, int maxMessageBytes, boolean creating) {

        Readiness(Optional<SendFailure> refusal, int maxMessageBytes) {
            this(refusal, maxMessageBytes, false);
        }

        static Readiness refused(SendFailure failure) {
            return new Readiness(Optional.of(failure), Integer.MAX_VALUE);
        }

        /** Refused while the brokers create the topic ({@code missing} says so). */
        static Readiness creating(SendFailure missing) {
            return new Readiness(Optional.of(missing), Integer.MAX_VALUE, true);
        }
    }

    /**
     * A lookup's answer and when it was given; {@code creating}, for a topic being created ({@link
     * Readiness#creating}), completes when the attempt ended (and the answer with it).
     */
    private record Answer(Readiness readiness, Instant at, @Nullable CompletableFuture<Void> creating) {
    }

    /** A lookup's readiness, and the attempt to create the topic when one is under way. */
    private record Found(Readiness readiness, @Nullable CompletableFuture<Void> creating) {

        static Found of(Readiness readiness) {
            return new Found(readiness, null);
        }
    }

    /** A topic that takes records, of unknown limits. */
    private static final Readiness UNKNOWN_LIMITS = new Readiness(Optional.empty(), Integer.MAX_VALUE);

    /**
     * What the topic's configuration says: the parts a lookup uses; {@code error} why they are unknown, if they are
     * for want of an answer.
     */
    private record Limits(int minInSyncReplicas, int maxMessageBytes, @Nullable Throwable error) {
        static final Limits UNKNOWN = new Limits(1, Integer.MAX_VALUE, null);

        static Limits unknown(Throwable error) {
            return new Limits(UNKNOWN.minInSyncReplicas(), UNKNOWN.maxMessageBytes(), error);
        }
    }

    /**
     * @param producers the producers that must hold a ready topic's metadata; the first asks for missing topics
     * @param timeout the bound of each admin request and producer lookup ({@code max.block.ms})
     * @param lookups runs the producers' blocking lookups (a bounded-elastic scheduler)
     * @param evictions the counter of the topics a full table drops, by table ({@code topic_readiness}, {@code
     *     topic_creations})
     */
    TopicReadiness(Admin admin, List<Producer<String, byte[]>> producers, Duration timeout, Executor lookups,
            AdminRefusals refusals, Function<String, TopicTable.Evictions> evictions, Clock clock) {
        this.admin = admin;
        this.producers = List.copyOf(producers);
        this.timeout = timeout;
        this.lookups = lookups;
        this.clock = clock;
        this.refusals = refusals;
        this.creation = new TopicCreation(admin, this.producers.getFirst(), timeout, lookups, refusals,
                evictions.apply("topic_creations"), clock);
        this.topics = TopicTable.dropping("topic readiness answers", (topic, answer) -> {
        }, evictions.apply("topic_readiness"), clock);
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
                return Mono.just(readinessOf(answers));
            }
            return Mono.fromFuture(CompletableFuture.allOf(answers.values().toArray(CompletableFuture[]::new)), true)
                    .then(Mono.fromSupplier(() -> readinessOf(answers)));
        });
    }

    /**
     * Looks {@code topic} up now (joining a lookup under way), not from the cache, and caches the answer: for a probe,
     * whose answer may decide that the topic's rows are dead-lettered, and before a record is refused as larger than
     * the topic takes (an operator may just have raised the topic's limit to let it through). Never errors.
     */
    Mono<Readiness> lookUpNow(String topic) {
        return Mono.defer(() -> Mono.fromFuture(Objects.requireNonNull(topics.compute(topic,
                        (name, known) -> known != null && !known.isDone() ? known : lookUp(name))), true))
                .map(Answer::readiness);
    }

    /**
     * Completes once none of {@code names} is being created: each is looked up (from the cache when known), and an
     * attempt to create one that does not exist ({@link TopicCreation}) is waited for, so that the next {@link
     * #readiness} answers for the created topic. For records that nothing else waits for (dead letters), where
     * refusing the records of a topic being created would lose them to the table. Bounded by the attempts' own
     * bound; never errors.
     */
    Mono<Void> created(Set<String> names) {
        return Mono.defer(() -> {
            Instant now = clock.instant();
            List<CompletableFuture<Void>> attempts = new ArrayList<>(names.size());
            for (String name : names) {
                attempts.add(answer(name, now).thenCompose(answer -> answer.creating() == null
                        ? CompletableFuture.completedFuture(null) : answer.creating()));
            }
            return Mono.fromFuture(CompletableFuture.allOf(attempts.toArray(CompletableFuture[]::new)), true);
        });
    }

    /**
     * Records that a send of {@code topic} failed for want of its metadata (or found the topic gone), so records
     * handed off later are refused at once instead of each waiting on the send thread; looked up again after
     * {@link #REFUSAL_TTL}. Cheap: safe on the producer's I/O thread.
     */
    void refuse(String topic, SendFailure failure) {
        CompletableFuture<Answer> refused = CompletableFuture.completedFuture(
                new Answer(Readiness.refused(failure), clock.instant(), null));
        topics.compute(topic, (name, known) -> refused);
    }

    private static Map<String, Readiness> readinessOf(Map<String, CompletableFuture<Answer>> answers) {
        Map<String, Readiness> readiness = new HashMap<>(answers.size() * 2);
        answers.forEach((name, answer) -> readiness.put(name, answer.join().readiness()));
        return readiness;
    }

    private CompletableFuture<Answer> answer(String topic, Instant now) {
        return Objects.requireNonNull(topics.compute(topic,
                (name, known) -> known != null && !expired(known, now) ? known : lookUp(name)));
    }

    /** Whether a refusal is older than {@link #REFUSAL_TTL}, or was given while an attempt that has ended ran. */
    private static boolean expired(CompletableFuture<Answer> known, Instant now) {
        Answer answer = known.getNow(null);
        return answer != null && answer.readiness().refusal().isPresent()
                && (!now.isBefore(answer.at().plus(REFUSAL_TTL))
                        || (answer.creating() != null && answer.creating().isDone()));
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
                .exceptionally(Limits::unknown); // missing, or no right to read configs: the send itself will say
        return described.thenCombine(limits, (description, known) -> {
                    if (known.error() != null) { // of a topic this client may describe: a refusal is worth a word
                        refusals.refused("describeConfigs of topic '" + topic + "'", known.error(), "checks no"
                                + " record against the topic's max.message.bytes and min.insync.replicas: the"
                                + " broker's answer to each send decides");
                    }
                    return unusable(topic, description, known.minInSyncReplicas()).map(Readiness::refused)
                            .orElse(new Readiness(Optional.empty(), known.maxMessageBytes()));
                })
                .thenCompose(readiness -> readiness.refusal().isPresent()
                        ? CompletableFuture.completedFuture(Found.of(readiness))
                        : inProducers(topic, readiness))
                .exceptionallyCompose(error -> notDescribed(topic, error))
                .orTimeout(timeout.multipliedBy(2).plusSeconds(1).toMillis(), TimeUnit.MILLISECONDS)
                .handle((found, error) -> error == null
                        ? new Answer(found.readiness(), clock.instant(), found.creating())
                        : new Answer(Readiness.refused(KafkaFailures.classify(error, topic)), clock.instant(), null));
    }

    /** {@code readiness} once each producer holds the topic's metadata (fetched on a bounded-elastic thread). */
    private CompletableFuture<Found> inProducers(String topic, Readiness readiness) {
        return CompletableFuture.supplyAsync(() -> Found.of(lookUpInProducers(topic, readiness)), lookups);
    }

    /**
     * What a topic the admin client could not describe gets: one that does not exist is created where the brokers
     * create topics ({@link TopicCreation}) and refused as missing meanwhile; one the admin client may not describe
     * is ready if the producers may use it (their own lookup decides: a refused admin call degrades to the
     * producer's answer); anything else is the lookup's error.
     */
    private CompletableFuture<Found> notDescribed(String topic, Throwable error) {
        SendFailure failure = KafkaFailures.classify(error, topic);
        if (failure.cause() == PublishFailureCause.UNKNOWN_TOPIC) {
            return creation.attempt(topic).thenCompose(attempt -> switch (attempt) {
                case TopicCreation.Attempt.UnderWay underWay -> CompletableFuture.completedFuture(new Found(
                        Readiness.creating(new SendFailure(failure.kind(), failure.scope(), failure.cause(),
                                KafkaFailures.unknownTopic(topic) + "; the brokers create topics on first use and it"
                                        + " is being created")), underWay.done()));
                case TopicCreation.Attempt.NotAsked notAsked -> CompletableFuture.completedFuture(Found.of(
                        Readiness.refused(notAsked.why().isEmpty() ? failure : new SendFailure(failure.kind(),
                                failure.scope(), failure.cause(), KafkaFailures.unknownTopic(topic) + "; "
                                + notAsked.why()))));
                case TopicCreation.Attempt.Created created -> inProducers(topic, UNKNOWN_LIMITS);
            });
        }
        if (failure.cause() == PublishFailureCause.AUTHORIZATION && failure.scope() == Scope.TOPIC) {
            // a producer that may not describe the topic fails here too: the topic is then refused as unauthorised
            return inProducers(topic, UNKNOWN_LIMITS)
                    .thenApply(found -> {
                        refusals.refused("describeTopics of topic '" + topic + "'", error, "takes the producers'"
                                + " own lookup of the topic, which may be written");
                        return found;
                    });
        }
        return CompletableFuture.failedFuture(error);
    }

    /**
     * {@code future} as a plain {@link CompletableFuture}. Why: Kafka's own futures refuse completion from outside,
     * so {@code orTimeout} on anything derived from them never fires (an admin call waiting for a node of an
     * unreachable cluster then took its 60 s default instead of the bound).
     */
    static <T> CompletableFuture<T> plain(KafkaFuture<T> future) {
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
                intConfig(config, TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.MAX_VALUE), null);
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
