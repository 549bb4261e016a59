package dev.dispatcher.app.outbox;

import io.r2dbc.postgresql.api.Notification;
import io.r2dbc.postgresql.api.PostgresqlConnection;
import reactor.core.publisher.Flux;

/** Test fixture for ServicePackagesTest: an outbox class that listens on a PostgreSQL connection itself. */
public final class ListenOffender {

    Flux<Notification> notifications(PostgresqlConnection connection) {
        return connection.getNotifications();
    }
}
