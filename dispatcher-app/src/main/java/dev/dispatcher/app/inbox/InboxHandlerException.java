package dev.dispatcher.app.inbox;

import dev.dispatcher.domain.FailureKind;
import java.util.Objects;

/**
 * A handler failure with its classification: {@link FailureKind#PERMANENT} dead-letters at once,
 * {@link FailureKind#TRANSIENT} retries with backoff until the attempt limit, {@link FailureKind#UNAVAILABLE}
 * gives the attempt back.
 */
public final class InboxHandlerException extends RuntimeException {

    private final FailureKind kind;

    public InboxHandlerException(FailureKind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    public static InboxHandlerException permanent(String message) {
        return new InboxHandlerException(FailureKind.PERMANENT, message, null);
    }

    public static InboxHandlerException transientFailure(String message, Throwable cause) {
        return new InboxHandlerException(FailureKind.TRANSIENT, message, cause);
    }

    public FailureKind kind() {
        return kind;
    }
}
