package dev.dispatcher.app.kafka;

import dev.dispatcher.domain.FailureKind;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.LeaderNotAvailableException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.InvalidRecordException;

/**
 * Classifies a send error once, where it is seen: record errors are permanent, broker-availability errors make
 * Kafka unavailable, the rest are transient. {@link Error}s are never classified: they are rethrown.
 */
public final class KafkaFailures {

    private KafkaFailures() {
    }

    /**
     * The kind of {@code error}, looking through wrapping exceptions.
     *
     * @throws Error if {@code error} is one
     */
    public static FailureKind classify(Throwable error) {
        Throwable e = unwrap(error);
        if (e instanceof Error fatal) {
            throw fatal;
        }
        if (e instanceof RecordTooLargeException || e instanceof RecordBatchTooLargeException
                || e instanceof SerializationException || e instanceof InvalidTopicException
                || e instanceof AuthorizationException || e instanceof AuthenticationException
                || e instanceof InvalidRecordException || e instanceof UnsupportedVersionException) {
            return FailureKind.PERMANENT;
        }
        if (e instanceof TimeoutException || e instanceof NetworkException || e instanceof DisconnectException
                || e instanceof NotEnoughReplicasException || e instanceof NotEnoughReplicasAfterAppendException
                || e instanceof NotLeaderOrFollowerException || e instanceof BrokerNotAvailableException
                || e instanceof LeaderNotAvailableException) {
            return FailureKind.UNAVAILABLE;
        }
        return FailureKind.TRANSIENT;
    }

    /** A short description for {@code last_error}: exception class and message. */
    public static String describe(Throwable error) {
        Throwable e = unwrap(error);
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    private static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof ExecutionException || e instanceof CompletionException
                || (e.getClass() == KafkaException.class)) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
