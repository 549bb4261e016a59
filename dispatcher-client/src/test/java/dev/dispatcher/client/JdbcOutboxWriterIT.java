package dev.dispatcher.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link JdbcOutboxWriter} inside an application's own JDBC transaction on real PostgreSQL. Verified through
 * separate connections.
 */
class JdbcOutboxWriterIT {

    private static final ClientTestDb db = new ClientTestDb("client_jdbc");
    private final JdbcOutboxWriter outbox = JdbcOutboxWriter.forSchema(db.schema);

    private static Connection transaction() throws SQLException {
        Connection c = ClientTestDb.postgres.openConnection();
        c.setAutoCommit(false);
        return c;
    }

    private static void insertOrder(Connection tx, String orderId) throws SQLException {
        try (PreparedStatement s = tx.prepareStatement("INSERT INTO " + db.schema + ".orders (id, amount) VALUES (?, 42.50)")) {
            s.setString(1, orderId);
            s.executeUpdate();
        }
    }

    private static OutboxMessage placed(String key, String type) {
        return OutboxMessage.builder("orders", type).key(key).jsonPayload("{\"orderId\":\"" + key + "\"}")
                .header("quote\"d", "line\nbreak").correlationId("corr-" + key).build();
    }

    @Test
    void businessRowAndOutboxRowCommitTogether() throws SQLException {
        String orderId = "order-" + UUID.randomUUID();
        WrittenMessage entry;
        try (Connection tx = transaction()) {
            insertOrder(tx, orderId);
            entry = outbox.write(tx, placed(orderId, "OrderPlaced"));
            assertThat(db.countOutbox(entry.id())).as("not visible before the commit").isZero();
            tx.commit();
        }

        assertThat(entry.status()).isEqualTo("PENDING");
        assertThat(entry.version()).isZero();
        assertThat(entry.visibleAfter()).isEqualTo(entry.createdAt());
        assertThat(db.countOrders(orderId)).isEqualTo(1);
        assertThat(db.countOutbox(entry.id())).isEqualTo(1);
        assertThat(db.typesOfKey(orderId)).containsExactly("OrderPlaced");
    }

    @Test
    void aRollbackRemovesBothRows() throws SQLException {
        String orderId = "order-" + UUID.randomUUID();
        UUID messageId = UUID.randomUUID();
        try (Connection tx = transaction()) {
            insertOrder(tx, orderId);
            outbox.write(tx, OutboxMessage.builder("orders", "OrderPlaced").id(messageId).key(orderId)
                    .jsonPayload("{}").build());
            tx.rollback();
        }

        assertThat(db.countOrders(orderId)).isZero();
        assertThat(db.countOutbox(messageId)).isZero();
    }

    @Test
    void concurrentWritersOfOneKeyCommitInSeqOrder() throws Exception {
        // The first writer holds its transaction open after writing; the second writer of the same key must wait
        // for it (seen waiting on the key's advisory lock) and so takes a later seq and commits after it. Without
        // the lock the second would take its seq and could commit first, and the relay would send it first.
        String key = "key-" + UUID.randomUUID();
        try (Connection first = transaction()) {
            WrittenMessage firstEntry = outbox.write(first, placed(key, "First"));
            CompletableFuture<WrittenMessage> second = CompletableFuture.supplyAsync(() -> {
                try (Connection tx = transaction()) {
                    WrittenMessage written = outbox.write(tx, placed(key, "Second"));
                    tx.commit();
                    return written;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });

            ClientTestDb.awaitWriterBlockedBy(ClientTestDb.backendPid(first));
            assertThat(second).isNotDone();
            first.commit();

            WrittenMessage secondEntry = second.get(20, TimeUnit.SECONDS);
            assertThat(secondEntry.seq()).isGreaterThan(firstEntry.seq());
        }
        assertThat(db.typesOfKey(key)).containsExactly("First", "Second");
    }

    @Test
    void aRepeatedIdFailsTheApplicationsTransaction() throws SQLException {
        UUID messageId = UUID.randomUUID();
        OutboxMessage message = OutboxMessage.builder("orders", "OrderPlaced").id(messageId).jsonPayload("{}").build();
        try (Connection tx = transaction()) {
            outbox.write(tx, message);
            tx.commit();
        }
        String orderId = "order-" + UUID.randomUUID();
        try (Connection tx = transaction()) {
            insertOrder(tx, orderId);
            assertThatThrownBy(() -> outbox.write(tx, message))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("23505"));
            tx.rollback();
        }
        assertThat(db.countOutbox(messageId)).isEqualTo(1);
        assertThat(db.countOrders(orderId)).isZero();
    }

    @Test
    void aDelayedMessageIsStoredVisibleAfterItsDelayOnTheDatabaseClock() throws SQLException {
        WrittenMessage delayed;
        WrittenMessage at;
        Instant now = Instant.now();
        try (Connection tx = transaction()) {
            delayed = outbox.write(tx, OutboxMessage.builder("orders", "Reminder").delay(Duration.ofHours(1))
                    .jsonPayload("{}").build());
            // a fixed writer clock: deliverAt is turned into a delay from it
            at = outbox.withClock(Clock.fixed(now, ZoneOffset.UTC)).write(tx, OutboxMessage.builder("orders",
                    "Reminder").deliverAt(now.plus(Duration.ofMinutes(10))).jsonPayload("{}").build());
            tx.commit();
        }

        assertThat(db.secondsUntilVisible(delayed.id())).isBetween(3590.0, 3600.0);
        assertThat(db.secondsUntilVisible(at.id())).isBetween(590.0, 600.0);
        assertThat(delayed.visibleAfter()).isAfter(delayed.createdAt().plus(Duration.ofMinutes(59)));
    }

    @Test
    void aDeliveryTimeOutsideTheWindowIsRefusedBeforeAnythingIsWritten() throws SQLException {
        UUID messageId = UUID.randomUUID();
        try (Connection tx = transaction()) {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> outbox.write(tx, OutboxMessage.builder("orders", "Late").id(messageId)
                            .deliverAt(Instant.now().minus(Duration.ofHours(1))).jsonPayload("{}").build()))
                    .withMessageContaining("deliverAt");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> outbox.withMaxDelay(Duration.ofMinutes(5)).write(tx,
                            OutboxMessage.builder("orders", "Far").id(messageId).delay(Duration.ofMinutes(6))
                                    .jsonPayload("{}").build()))
                    .withMessageContaining("delay must be at most PT5M");
            tx.commit();
        }
        assertThat(db.countOutbox(messageId)).isZero();
    }

    @Test
    void aPayloadAboveTheLimitIsRefusedNamingLimitAndSizeBeforeAnythingIsWritten() throws SQLException {
        UUID messageId = UUID.randomUUID();
        try (Connection tx = transaction()) {
            assertThatThrownBy(() -> outbox.withMaxPayloadSize(1000).write(tx, OutboxMessage.builder("orders", "Big")
                    .id(messageId).payload(new byte[1001]).build()))
                    .isInstanceOfSatisfying(PayloadTooLargeException.class, e -> {
                        assertThat(e.size()).isEqualTo(1001);
                        assertThat(e.limit()).isEqualTo(1000);
                    })
                    .hasMessageContaining("is 1001 bytes, more than the writer's limit of 1000 bytes");
            outbox.withMaxPayloadSize(1000).write(tx, OutboxMessage.builder("orders", "Fits").payload(new byte[1000])
                    .build());
            tx.commit();
        }
        assertThat(db.countOutbox(messageId)).isZero();
        assertThatIllegalArgumentException().isThrownBy(() -> outbox.withMaxPayloadSize(0))
                .withMessage("maxPayloadSize must be positive, but was 0");
    }

    @Test
    void statementsAreTranslatedToJdbcPlaceholdersInOrder() {
        assertThat(JdbcOutboxWriter.positional("SELECT $1, $2::int, f($3)")).isEqualTo("SELECT ?, ?::int, f(?)");
        assertThatThrownBy(() -> JdbcOutboxWriter.positional("SELECT $2, $1"))
                .isInstanceOf(IllegalStateException.class);
    }
}
