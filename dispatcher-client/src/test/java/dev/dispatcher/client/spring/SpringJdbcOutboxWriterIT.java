package dev.dispatcher.client.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dispatcher.client.ClientTestDb;
import dev.dispatcher.client.JdbcOutboxWriter;
import dev.dispatcher.client.OutboxMessage;
import dev.dispatcher.client.WrittenMessage;
import java.sql.SQLException;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link SpringJdbcOutboxWriter} in Spring-managed JDBC transactions (the {@code @Transactional} machinery without
 * Boot) on real PostgreSQL: the outbox row joins the transaction JdbcTemplate's business write runs in.
 */
class SpringJdbcOutboxWriterIT {

    private static final ClientTestDb db = new ClientTestDb("client_spring_jdbc");
    private static final DataSource dataSource = new DriverManagerDataSource(ClientTestDb.postgres.jdbcUrl(),
            ClientTestDb.postgres.username(), ClientTestDb.postgres.password());

    private final TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    private final JdbcTemplate jdbc = new JdbcTemplate(dataSource);
    private final SpringJdbcOutboxWriter outbox =
            new SpringJdbcOutboxWriter(dataSource, JdbcOutboxWriter.forSchema(db.schema));

    private void insertOrder(String orderId) {
        jdbc.update("INSERT INTO " + db.schema + ".orders (id, amount) VALUES (?, 42.50)", orderId);
    }

    private static OutboxMessage placed(UUID id, String orderId) {
        return OutboxMessage.builder("orders", "OrderPlaced").id(id).key(orderId).jsonPayload("{}").build();
    }

    @Test
    void businessRowAndOutboxRowCommitTogether() throws SQLException {
        String orderId = "order-" + UUID.randomUUID();
        UUID messageId = UUID.randomUUID();

        WrittenMessage entry = transactions.execute(status -> {
            insertOrder(orderId);
            return outbox.write(placed(messageId, orderId));
        });

        assertThat(entry.id()).isEqualTo(messageId);
        assertThat(db.countOrders(orderId)).isEqualTo(1);
        assertThat(db.countOutbox(messageId)).isEqualTo(1);
    }

    @Test
    void aRollbackRemovesBothRows() throws SQLException {
        String orderId = "order-" + UUID.randomUUID();
        UUID messageId = UUID.randomUUID();

        assertThatThrownBy(() -> transactions.executeWithoutResult(status -> {
            insertOrder(orderId);
            outbox.write(placed(messageId, orderId));
            throw new IllegalStateException("business rule failed after the write");
        })).hasMessage("business rule failed after the write");

        assertThat(db.countOrders(orderId)).isZero();
        assertThat(db.countOutbox(messageId)).isZero();
    }

    @Test
    void aWriteOutsideATransactionIsRefused() throws SQLException {
        UUID messageId = UUID.randomUUID();

        assertThatThrownBy(() -> outbox.write(placed(messageId, "order-x")))
                .isInstanceOf(IllegalTransactionStateException.class)
                .hasMessageContaining("no transaction is active");
        assertThat(db.countOutbox(messageId)).isZero();
    }

    @Test
    void aRepeatedIdIsADuplicateKeyAndRollsBackTheBusinessRow() throws SQLException {
        UUID messageId = UUID.randomUUID();
        transactions.executeWithoutResult(status -> outbox.write(placed(messageId, "order-a")));
        String orderId = "order-" + UUID.randomUUID();

        assertThatThrownBy(() -> transactions.executeWithoutResult(status -> {
            insertOrder(orderId);
            outbox.write(placed(messageId, orderId));
        })).isInstanceOf(DuplicateKeyException.class);

        assertThat(db.countOrders(orderId)).isZero();
        assertThat(db.countOutbox(messageId)).isEqualTo(1);
    }
}
