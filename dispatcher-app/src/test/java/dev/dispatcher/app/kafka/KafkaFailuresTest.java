package dev.dispatcher.app.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dispatcher.app.kafka.SendFailure.Scope;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.domain.FailureKind;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.LeaderNotAvailableException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link KafkaFailures} classes every error by the smallest thing that failed: each row of the table is an error the
 * producer or admin client really raises, with the kind, scope and metric cause it must get.
 */
class KafkaFailuresTest {

    static List<Arguments> errors() {
        return List.of(
                // the record alone
                Arguments.of(new RecordTooLargeException("The request included a message larger than the max message"
                        + " size the server will accept."), FailureKind.PERMANENT, Scope.RECORD,
                        PublishFailureCause.RECORD_TOO_LARGE),
                Arguments.of(new SerializationException("bad"), FailureKind.PERMANENT, Scope.RECORD,
                        PublishFailureCause.OTHER),
                Arguments.of(new IllegalStateException("unexpected"), FailureKind.TRANSIENT, Scope.RECORD,
                        PublishFailureCause.OTHER),
                // its topic
                Arguments.of(new TimeoutException("Topic t not present in metadata after 10000 ms.",
                        new UnknownTopicOrPartitionException("This server does not host this topic-partition.")),
                        FailureKind.UNAVAILABLE, Scope.TOPIC, PublishFailureCause.UNKNOWN_TOPIC),
                Arguments.of(new UnknownTopicOrPartitionException("This server does not host this topic-partition."),
                        FailureKind.UNAVAILABLE, Scope.TOPIC, PublishFailureCause.UNKNOWN_TOPIC),
                Arguments.of(new NotEnoughReplicasException("Messages are rejected since there are fewer in-sync"
                        + " replicas than required."), FailureKind.UNAVAILABLE, Scope.TOPIC,
                        PublishFailureCause.NOT_ENOUGH_REPLICAS),
                Arguments.of(new NotEnoughReplicasAfterAppendException("after append"), FailureKind.UNAVAILABLE,
                        Scope.TOPIC, PublishFailureCause.NOT_ENOUGH_REPLICAS),
                Arguments.of(new TimeoutException("Expiring 5 record(s) for t-2: 30004 ms has passed since batch"
                        + " creation"), FailureKind.UNAVAILABLE, Scope.TOPIC, PublishFailureCause.TIMEOUT),
                Arguments.of(new java.util.concurrent.TimeoutException(), FailureKind.UNAVAILABLE, Scope.TOPIC,
                        PublishFailureCause.TIMEOUT),
                Arguments.of(new NotLeaderOrFollowerException("not the leader"), FailureKind.UNAVAILABLE, Scope.TOPIC,
                        PublishFailureCause.OTHER),
                Arguments.of(new LeaderNotAvailableException("no leader"), FailureKind.UNAVAILABLE, Scope.TOPIC,
                        PublishFailureCause.OTHER),
                Arguments.of(new TopicAuthorizationException(Set.of("t")), FailureKind.PERMANENT, Scope.TOPIC,
                        PublishFailureCause.AUTHORIZATION),
                Arguments.of(new InvalidTopicException("bad name"), FailureKind.PERMANENT, Scope.TOPIC,
                        PublishFailureCause.OTHER),
                // the broker
                Arguments.of(new NetworkException("Disconnected from node 0"), FailureKind.UNAVAILABLE, Scope.BROKER,
                        PublishFailureCause.OTHER),
                Arguments.of(new DisconnectException("gone"), FailureKind.UNAVAILABLE, Scope.BROKER,
                        PublishFailureCause.OTHER),
                Arguments.of(new BufferExhaustedException("Failed to allocate memory within the configured max"
                        + " blocking time"), FailureKind.UNAVAILABLE, Scope.BROKER, PublishFailureCause.TIMEOUT),
                Arguments.of(new ClusterAuthorizationException("no idempotent write"), FailureKind.UNAVAILABLE,
                        Scope.BROKER, PublishFailureCause.AUTHORIZATION),
                Arguments.of(new SaslAuthenticationException("bad password"), FailureKind.UNAVAILABLE, Scope.BROKER,
                        PublishFailureCause.AUTHORIZATION));
    }

    @ParameterizedTest
    @MethodSource("errors")
    void everyErrorIsClassedByTheSmallestThingThatFailed(Throwable error, FailureKind kind, Scope scope,
            PublishFailureCause cause) {
        SendFailure failure = KafkaFailures.classify(error, "t");

        assertThat(failure.kind()).isEqualTo(kind);
        assertThat(failure.scope()).isEqualTo(scope);
        assertThat(failure.cause()).isEqualTo(cause);
        assertThat(failure.description()).isNotBlank();
    }

    @ParameterizedTest
    @MethodSource("errors")
    void wrappingChangesNothing(Throwable error, FailureKind kind, Scope scope, PublishFailureCause cause) {
        for (Throwable wrapped : List.of(new ExecutionException(error), new CompletionException(error),
                new KafkaException(error))) {
            assertThat(KafkaFailures.classify(wrapped, "t")).isEqualTo(KafkaFailures.classify(error, "t"));
        }
    }

    @Test
    void theTableCoversEveryKindScopeAndCause() {
        List<Arguments> table = errors();
        assertThat(table.stream().map(a -> (FailureKind) a.get()[1]).collect(Collectors.toSet()))
                .isEqualTo(EnumSet.allOf(FailureKind.class));
        assertThat(table.stream().map(a -> (Scope) a.get()[2]).collect(Collectors.toSet()))
                .isEqualTo(EnumSet.allOf(Scope.class));
        assertThat(table.stream().map(a -> (PublishFailureCause) a.get()[3]).collect(Collectors.toSet()))
                .isEqualTo(EnumSet.allOf(PublishFailureCause.class));
    }

    @Test
    void aMissingTopicIsNamedInItsLastError() {
        SendFailure failure = KafkaFailures.classify(new TimeoutException("Topic orders not present in metadata"
                + " after 10000 ms.", new UnknownTopicOrPartitionException("not hosted")), "orders");

        assertThat(failure.description()).isEqualTo("topic 'orders' does not exist (UNKNOWN_TOPIC_OR_PARTITION)");
        assertThat(failure.topicUnavailable()).isTrue();
        assertThat(failure.brokerUnavailable()).isFalse();
    }

    @Test
    void errorsAreNeverClassifiedButRethrown() {
        assertThatThrownBy(() -> KafkaFailures.classify(new CompletionException(new OutOfMemoryError("heap")), "t"))
                .isInstanceOf(OutOfMemoryError.class);
    }

    @Test
    void aTopicIsUnusableOnlyWhenNoPartitionCanTakeAnAcksAllWrite() {
        Node broker = new Node(0, "localhost", 9092);
        Node other = new Node(1, "localhost", 9093);
        TopicPartitionInfo healthy = new TopicPartitionInfo(0, broker, List.of(broker, other), List.of(broker, other));
        TopicPartitionInfo shortOfReplicas = new TopicPartitionInfo(1, broker, List.of(broker, other), List.of(broker));
        TopicPartitionInfo offline = new TopicPartitionInfo(2, null, List.of(broker, other), List.of());

        assertThat(TopicReadiness.unusable("t", new TopicDescription("t", false, List.of(healthy, offline)), 2))
                .as("one good partition is enough").isEmpty();
        assertThat(TopicReadiness.unusable("t", new TopicDescription("t", false, List.of(shortOfReplicas)), 1))
                .isEmpty();
        assertThat(TopicReadiness.unusable("t", new TopicDescription("t", false, List.of(shortOfReplicas, offline)),
                2)).hasValueSatisfying(f -> assertThat(f.cause()).isEqualTo(PublishFailureCause.NOT_ENOUGH_REPLICAS));
        assertThat(TopicReadiness.unusable("t", new TopicDescription("t", false, List.of(offline)), 1))
                .hasValueSatisfying(f -> assertThat(f.description()).contains("LEADER_NOT_AVAILABLE"));
        TopicPartitionInfo single = new TopicPartitionInfo(0, broker, List.of(broker), List.of(broker));
        assertThat(TopicReadiness.unusable("t", new TopicDescription("t", false, List.of(single)), 2))
                .as("min.insync.replicas counts at most the replication factor, as the broker does").isEmpty();
    }
}
