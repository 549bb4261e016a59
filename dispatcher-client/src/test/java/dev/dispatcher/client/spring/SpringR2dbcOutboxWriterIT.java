package dev.dispatcher.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.client.ClientTestDb;
import dev.dispatcher.client.OutboxMessage;
import dev.dispatcher.client.OutboxWriter;
import dev.dispatcher.client.WrittenMessage;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import io.r2dbc.spi.ConnectionFactory;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.reactive.TransactionalOperator;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * {@link SpringR2dbcOutboxWriter} in Spring-managed reactive transactions on real PostgreSQL: the outbox row joins
 * the transaction DatabaseClient's business write runs in.
 */
class SpringR2dbcOutboxWriterIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final ClientTestDb db = new ClientTestDb("client_spring_r2dbc");
    private static final ConnectionFactory connections = new PostgresqlConnectionFactory(
            PostgresqlConnectionConfiguration.builder().host(ClientTestDb.postgres.host())
                    .port(ClientTestDb.postgres.port()).database(ClientTestDb.postgres.database())
                    .username(ClientTestDb.postgres.username()).password(ClientTestDb.postgres.password()).build());

    private final TransactionalOperator transactions =
            TransactionalOperator.create(new R2dbcTransactionManager(connections));
    private final DatabaseClient database = DatabaseClient.create(connections);
    private final SpringR2dbcOutboxWriter outbox =
            new SpringR2dbcOutboxWriter(connections, OutboxWriter.forSchema(db.schema));

    private Mono<Long> insertOrder(String orderId) {
        return database.sql("INSERT INTO " + db.schema + ".orders (id, amount) VALUES (:id, 42.50)")
                .bind("id", orderId).fetch().rowsUpdated();
    }

    private static OutboxMessage placed(UUID id, String orderId) {
        return OutboxMessage.builder("orders", "OrderPlaced").id(id).key(orderId).jsonPayload("{}").build();
    }

    @Test
    void businessRowAndOutboxRowCommitTogether() throws SQLException {
        String orderId = "order-" + UUID.randomUUID();
        UUID messageId = UUID.randomUUID();

        WrittenMessage entry = insertOrder(orderId).then(outbox.write(placed(messageId, orderId)))
                .as(transactions::transactional)
                .block(TIMEOUT);

        assertThat(entry.id()).isEqualTo(messageId);
        assertThat(db.countOrders(orderId)).isEqualTo(1);
        assertThat(db.countOutbox(messageId)).isEqualTo(1);
    }

    @Test
    void aRollbackRemovesBothRows() throws SQLException {
        String orderId = "order-" + UUID.randomUUID();
        UUID messageId = UUID.randomUUID();

        insertOrder(orderId).then(outbox.write(placed(messageId, orderId)))
                .then(Mono.error(new IllegalStateException("business rule failed after the write")))
                .as(transactions::transactional)
                .as(StepVerifier::create)
                .expectErrorMessage("business rule failed after the write")
                .verify(TIMEOUT);

        assertThat(db.countOrders(orderId)).isZero();
        assertThat(db.countOutbox(messageId)).isZero();
    }

    @Test
    void aWriteOutsideATransactionIsRefused() throws SQLException {
        UUID messageId = UUID.randomUUID();

        outbox.write(placed(messageId, "order-x"))
                .as(StepVerifier::create)
                .expectError(IllegalTransactionStateException.class)
                .verify(TIMEOUT);

        assertThat(db.countOutbox(messageId)).isZero();
    }
}
