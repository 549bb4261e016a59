package dev.dispatcher.app.inbox;

import io.r2dbc.spi.Connection;
import java.util.Objects;

/**
 * What a handler may use besides the message.
 *
 * <p>{@link #connection()} is the connection of the message's READ COMMITTED transaction; it exists only for
 * {@linkplain InboxHandler#transactional() transactional} handlers.
 */
public final class HandlerContext {

    private final Connection connection;
    private final String workerId;

    HandlerContext(Connection connection, String workerId) {
        this.connection = connection;
        this.workerId = Objects.requireNonNull(workerId, "workerId");
    }

    /**
     * The transaction's connection: write the local effect here; never commit, roll back or close it.
     *
     * @throws IllegalStateException for a handler that is not transactional
     */
    public Connection connection() {
        if (connection == null) {
            throw new IllegalStateException("no transaction: the handler declared transactional() == false");
        }
        return connection;
    }

    /** The worker running the handler (the lease owner). */
    public String workerId() {
        return workerId;
    }
}
