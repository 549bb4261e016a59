package dev.dispatcher.app.store;

import java.time.Duration;

/**
 * An operator read ran out of its time in PostgreSQL and was cancelled there ({@code statement_timeout}, SQLSTATE
 * 57014): its filter matched too few rows among those it had to walk. Nothing was written; the connection went back
 * to the pool.
 */
public final class OperatorReadTimeout extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Duration timeout;

    public OperatorReadTimeout(Duration timeout, Throwable cause) {
        super("an operator read ran longer than " + timeout + " and was cancelled", cause);
        this.timeout = timeout;
    }

    /** The bound the read ran out of. */
    public Duration timeout() {
        return timeout;
    }
}
