package dev.dispatcher.app.kafka;

import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.errors.AuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells apart, for the admin calls a publisher makes for its own checks ({@code describeTopics}, {@code
 * describeConfigs}, {@code describeCluster}), a call Kafka refused for want of rights, and logs the first such
 * refusal as one warning: a principal granted only what producing needs (Write and Describe on its topics) is a
 * setup Dispatcher runs on, not an error to repeat on every lookup. Every refused check has a stand-in (the
 * producer's own answer, or none), so the warning is about what the operator gives up, once; later refusals go to
 * DEBUG. Thread-safe.
 */
final class AdminRefusals {

    private static final Logger log = LoggerFactory.getLogger(AdminRefusals.class);

    private final AtomicBoolean warned = new AtomicBoolean();

    /**
     * Whether {@code error} (as a Kafka future or the admin client gives it, wrapped or not) refuses {@code call} for
     * want of rights; if so it is logged, with {@code instead}: what the publisher does without the call.
     */
    boolean refused(String call, Throwable error, String instead) {
        Throwable cause = KafkaFailures.unwrap(error);
        if (!(cause instanceof AuthorizationException)) {
            return false;
        }
        if (warned.compareAndSet(false, true)) {
            log.warn("Kafka refuses this client {} ({}: {}); Dispatcher {}. This is the one warning for such"
                    + " refusals: every refused check is left to the producer's own answers (the ACLs each part"
                    + " needs are in docs/operations.md, Kafka ACLs)", call, cause.getClass().getSimpleName(),
                    cause.getMessage(), instead);
        } else {
            log.debug("Kafka refuses this client {} ({}); Dispatcher {}", call, cause.toString(), instead);
        }
        return true;
    }

    /** Whether a refusal was logged (for tests). */
    boolean warned() {
        return warned.get();
    }
}
