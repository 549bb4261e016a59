package dev.dispatcher.app.inbox;

import dev.dispatcher.app.outbox.KafkaTypeOffender;
import dev.dispatcher.sql.InboxSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Statement;

/** Test fixture for ServicePackagesTest: an inbox class that binds SQL itself, and uses the outbox fixture. */
public final class SqlBindingOffender {

    Statement bind(Connection c) {
        return c.createStatement(InboxSql.CLAIM).bind("$1", "consumer");
    }

    Object other() {
        return new KafkaTypeOffender();
    }
}
