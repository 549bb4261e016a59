package dev.dispatcher.app.kafka;

import dev.dispatcher.app.kafka.SendFailure.Scope;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.domain.FailureKind;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.LeaderNotAvailableException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.Errors;

/**
 * Classifies a send error once, where it is seen, by the smallest thing that failed: the record (permanent when it
 * can never succeed: too large, unserialisable; transient otherwise), its topic (missing, offline, short of in-sync
 * replicas, timing out: unavailable, so only that topic's rows wait; an invalid or unauthorised topic is permanent)
 * or the broker (unreachable, refusing this client, the producer's buffer full: unavailable, and only this opens the
 * relay-wide breaker). {@link Error}s are never classified: they are rethrown.
 *
 * <p>A timeout alone does not say whether one topic or the whole broker is the problem (a partition without a
 * leader and a cut link both let records expire), so it is classed as the topic's; the relay asks the cluster
 * itself before it stops every topic.
 */
public final class KafkaFailures {

    private KafkaFailures() {
    }

    /**
     * The classification of {@code error}, looking through wrapping exceptions, for a record of {@code topic}.
     *
     * @throws Error if {@code error} is one
     */
    public static SendFailure classify(Throwable error, String topic) {
        Throwable e = unwrap(error);
        if (e instanceof Error fatal) {
            throw fatal;
        }
        String description = e.getClass().getSimpleName() + ": " + e.getMessage();
        if (e instanceof RecordTooLargeException || e instanceof RecordBatchTooLargeException) {
            return new SendFailure(FailureKind.PERMANENT, Scope.RECORD, PublishFailureCause.RECORD_TOO_LARGE,
                    description);
        }
        if (e instanceof SerializationException || e instanceof InvalidRecordException
                || e instanceof UnsupportedVersionException) {
            return new SendFailure(FailureKind.PERMANENT, Scope.RECORD, PublishFailureCause.OTHER, description);
        }
        if (e instanceof InvalidTopicException) {
            return new SendFailure(FailureKind.PERMANENT, Scope.TOPIC, PublishFailureCause.OTHER, description);
        }
        // before AuthorizationException, its superclass: without cluster rights (idempotent writes) nothing goes out
        if (e instanceof ClusterAuthorizationException || e instanceof AuthenticationException) {
            return new SendFailure(FailureKind.UNAVAILABLE, Scope.BROKER, PublishFailureCause.AUTHORIZATION,
                    description);
        }
        if (e instanceof AuthorizationException) {
            return new SendFailure(FailureKind.PERMANENT, Scope.TOPIC, PublishFailureCause.AUTHORIZATION, description);
        }
        if (e instanceof UnknownTopicOrPartitionException || e.getCause() instanceof UnknownTopicOrPartitionException) {
            // a send's metadata wait ends in a TimeoutException whose cause is the broker's answer
            return new SendFailure(FailureKind.UNAVAILABLE, Scope.TOPIC, PublishFailureCause.UNKNOWN_TOPIC,
                    unknownTopic(topic));
        }
        if (e instanceof NotEnoughReplicasException || e instanceof NotEnoughReplicasAfterAppendException) {
            return new SendFailure(FailureKind.UNAVAILABLE, Scope.TOPIC, PublishFailureCause.NOT_ENOUGH_REPLICAS,
                    description);
        }
        // before TimeoutException, its superclass: the buffer is shared by every topic
        if (e instanceof BufferExhaustedException) {
            return new SendFailure(FailureKind.UNAVAILABLE, Scope.BROKER, PublishFailureCause.TIMEOUT, description);
        }
        if (e instanceof TimeoutException) {
            return new SendFailure(FailureKind.UNAVAILABLE, Scope.TOPIC, PublishFailureCause.TIMEOUT, description);
        }
        if (e instanceof java.util.concurrent.TimeoutException) { // a bound of our own ran out: no answer in time
            return new SendFailure(FailureKind.UNAVAILABLE, Scope.TOPIC, PublishFailureCause.TIMEOUT,
                    "no answer from Kafka about topic '" + topic + "' in time");
        }
        if (e instanceof NotLeaderOrFollowerException || e instanceof LeaderNotAvailableException
                || e instanceof KafkaStorageException) {
            return new SendFailure(FailureKind.UNAVAILABLE, Scope.TOPIC, PublishFailureCause.OTHER, description);
        }
        if (e instanceof NetworkException || e instanceof DisconnectException
                || e instanceof BrokerNotAvailableException) {
            return new SendFailure(FailureKind.UNAVAILABLE, Scope.BROKER, PublishFailureCause.OTHER, description);
        }
        return new SendFailure(FailureKind.TRANSIENT, Scope.RECORD, PublishFailureCause.OTHER, description);
    }

    /** What a missing topic's rows keep as {@code last_error}. */
    static String unknownTopic(String topic) {
        return "topic '" + topic + "' does not exist (" + Errors.UNKNOWN_TOPIC_OR_PARTITION.name() + ")";
    }

    /** {@code error} without the wrappers futures and the admin client put around Kafka's own exception. */
    static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof ExecutionException || e instanceof CompletionException
                || (e.getClass() == KafkaException.class)) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
