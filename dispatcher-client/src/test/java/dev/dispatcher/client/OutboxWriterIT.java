package dev.dispatcher.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.R2dbcDataIntegrityViolationException;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * {@link OutboxWriter} inside an application's own transaction on real PostgreSQL: the business row and the outbox
 * row commit together or not at all. Verified through a separate JDBC connection.
 */
class OutboxWriterIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private static final PostgresServer postgres = TestServers.postgres();
    private static String schema;
    /** The application's connections: search_path is Dispatcher's schema plus the application's own. */
    private static ConnectionFactory app;
    /** Connections whose search_path does not include Dispatcher's schema. */
    private static ConnectionFactory elsewhere;

    @BeforeAll
    static void createSchemaAndBusinessTable() throws SQLException {
        schema = postgres.createSchema("client_writer");
        try (java.sql.Connection c = postgres.openConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + schema + ".orders (id text PRIMARY KEY, amount numeric NOT NULL)");
        }
        app = factory(schema);
        elsewhere = factory("public");
    }

    private static ConnectionFactory factory(String searchPath) {
        return new PostgresqlConnectionFactory(PostgresqlConnectionConfiguration.builder()
                .host(postgres.host()).port(postgres.port()).database(postgres.database())
                .username(postgres.username()).password(postgres.password()).schema(searchPath)
                .applicationName("outbox-writer-it").build());
    }

    /** Runs {@code work} in one transaction: commit on success, rollback on error. */
    private static <T> Mono<T> inTransaction(ConnectionFactory factory, Function<Connection, Mono<T>> work) {
        return Mono.usingWhen(factory.create(),
                tx -> Mono.from(tx.beginTransaction()).then(work.apply(tx)),
                tx -> Mono.from(tx.commitTransaction()).then(Mono.from(tx.close())),
                (tx, e) -> Mono.from(tx.rollbackTransaction()).then(Mono.from(tx.close())),
                tx -> Mono.from(tx.rollbackTransaction()).then(Mono.from(tx.close())));
    }

    private static Mono<Long> insertOrder(Connection tx, String orderId) {
        return Flux.from(tx.createStatement("INSERT INTO orders (id, amount) VALUES ($1, 42.50)")
                        .bind("$1", orderId).execute())
                .flatMap(r -> r.getRowsUpdated()).reduce(0L, Long::sum);
    }

    private static OutboxMessage orderPlaced(String orderId) {
        return OutboxMessage.builder("orders", "OrderPlaced")
                .key(orderId)
                .jsonPayload("{\"orderId\":\"" + orderId + "\"}")
                .header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                .header("quote\"d", "line\nbreak")
                .correlationId("corr-" + orderId)
                .build();
    }

    @Test
    void businessRowAndOutboxRowCommitTogether() throws SQLException {
        String orderId = "order-" + UUID.randomUUID();
        OutboxWriter outbox = OutboxWriter.create();

        WrittenMessage entry = inTransaction(app, tx -> insertOrder(tx, orderId)
                .then(outbox.write(tx, orderPlaced(orderId))))
                .block(TIMEOUT);

        assertThat(entry.status()).isEqualTo("PENDING");
        assertThat(entry.version()).isZero();
        assertThat(entry.createdAt()).isNotNull();
        assertThat(countOrders(orderId)).isEqualTo(1);
        try (java.sql.Connection c = postgres.openConnection();
                PreparedStatement q = c.prepareStatement("SELECT topic, message_key, event_type, payload, content_type,"
                        + " headers->>'traceparent', headers->>'quote\"d', correlation_id, status FROM " + schema
                        + ".outbox_message WHERE id = ?")) {
            q.setObject(1, entry.id());
            try (ResultSet row = q.executeQuery()) {
                assertThat(row.next()).isTrue();
                assertThat(row.getString(1)).isEqualTo("orders");
                assertThat(row.getString(2)).isEqualTo(orderId);
                assertThat(row.getString(3)).isEqualTo("OrderPlaced");
                assertThat(new String(row.getBytes(4), StandardCharsets.UTF_8)).contains(orderId);
                assertThat(row.getString(5)).isEqualTo("application/json");
                assertThat(row.getString(6)).startsWith("00-4bf92f");
                assertThat(row.getString(7)).isEqualTo("line\nbreak");
                assertThat(row.getString(8)).isEqualTo("corr-" + orderId);
                assertThat(row.getString(9)).isEqualTo("PENDING");
            }
        }
    }

    @Test
    void aFailureAfterTheOutboxWriteRollsBackBothRows() throws SQLException {
        String orderId = "order-" + UUID.randomUUID();
        UUID messageId = UUID.randomUUID();
        OutboxWriter outbox = OutboxWriter.create();

        Mono<WrittenMessage> failing = inTransaction(app, tx -> insertOrder(tx, orderId)
                .then(outbox.write(tx, OutboxMessage.builder("orders", "OrderPlaced").id(messageId).key(orderId)
                        .jsonPayload("{}").build()))
                .flatMap(written -> Mono.error(new IllegalStateException("business rule failed after the write"))));

        failing.as(StepVerifier::create)
                .expectErrorMessage("business rule failed after the write")
                .verify(TIMEOUT);

        assertThat(countOrders(orderId)).isZero();
        assertThat(countOutbox(messageId)).isZero();
    }

    @Test
    void aSchemaQualifiedWriterWorksWithoutTheSearchPath() throws SQLException {
        UUID messageId = UUID.randomUUID();
        WrittenMessage entry = inTransaction(elsewhere, tx -> OutboxWriter.forSchema(schema)
                .write(tx, OutboxMessage.builder("audit.events", "Checked").id(messageId)
                        .payload(new byte[] {1, 2, 3}).contentType("application/octet-stream").build()))
                .block(TIMEOUT);

        assertThat(entry.id()).isEqualTo(messageId);
        assertThat(countOutbox(messageId)).isEqualTo(1);
    }

    @Test
    void aRepeatedIdFailsTheApplicationsTransaction() throws SQLException {
        UUID messageId = UUID.randomUUID();
        OutboxWriter outbox = OutboxWriter.create();
        OutboxMessage message = OutboxMessage.builder("orders", "OrderPlaced").id(messageId).jsonPayload("{}").build();
        inTransaction(app, tx -> outbox.write(tx, message)).block(TIMEOUT);

        String orderId = "order-" + UUID.randomUUID();
        inTransaction(app, tx -> insertOrder(tx, orderId).then(outbox.write(tx, message)))
                .as(StepVerifier::create)
                .expectError(R2dbcDataIntegrityViolationException.class)
                .verify(TIMEOUT);

        assertThat(countOutbox(messageId)).isEqualTo(1);
        assertThat(countOrders(orderId)).isZero();
    }

    @Test
    void aKeyedWriteWaitsForTheKeysWriterLock() throws Exception {
        // Another transaction holding the key's lock (as a writer of the same key would) holds this write back
        // until it ends, so a key's rows commit in seq order; that lock is OutboxSql.LOCK_KEY's.
        String key = "key-" + UUID.randomUUID();
        try (java.sql.Connection holder = postgres.openConnection()) {
            holder.setAutoCommit(false);
            try (PreparedStatement lock = holder.prepareStatement("SELECT pg_advisory_xact_lock(hashtextextended(?, 7351))")) {
                lock.setString(1, key);
                lock.execute();
            }
            var write = inTransaction(app, tx -> OutboxWriter.create().write(tx,
                    OutboxMessage.builder("orders", "Second").key(key).jsonPayload("2").build())).toFuture();

            ClientTestDb.awaitWriterBlockedBy(ClientTestDb.backendPid(holder));
            assertThat(write).isNotDone();
            holder.commit();
            assertThat(write.get(20, java.util.concurrent.TimeUnit.SECONDS).status()).isEqualTo("PENDING");
        }
    }

    @Test
    void aDelayedMessageIsStoredVisibleAfterItsDelay() throws SQLException {
        WrittenMessage entry = inTransaction(app, tx -> OutboxWriter.create().write(tx,
                OutboxMessage.builder("orders", "Reminder").delay(Duration.ofMinutes(30)).jsonPayload("{}").build()))
                .block(TIMEOUT);

        assertThat(entry.visibleAfter()).isAfter(entry.createdAt().plus(Duration.ofMinutes(29)));
        try (java.sql.Connection c = postgres.openConnection(); PreparedStatement q = c.prepareStatement(
                "SELECT extract(epoch FROM visible_after - clock_timestamp()) FROM " + schema
                        + ".outbox_message WHERE id = ?")) {
            q.setObject(1, entry.id());
            try (ResultSet row = q.executeQuery()) {
                assertThat(row.next()).isTrue();
                assertThat(row.getDouble(1)).isBetween(1790.0, 1800.0);
            }
        }
    }

    @Test
    void aDeliveryTimeOutsideTheWindowFailsTheWriteBeforeAnythingIsSent() {
        OutboxMessage tooLate = OutboxMessage.builder("orders", "Far").delay(Duration.ofDays(8)).jsonPayload("{}")
                .build();
        inTransaction(app, tx -> OutboxWriter.create().write(tx, tooLate))
                .as(StepVerifier::create)
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("delay must be at most PT168H"))
                .verify(TIMEOUT);
    }

    @Test
    void aPayloadAboveTheDefaultLimitFailsTheWriteBeforeAnythingIsSent() {
        OutboxMessage big = OutboxMessage.builder("orders", "Big").payload(new byte[1024 * 1024 + 1]).build();
        inTransaction(app, tx -> OutboxWriter.create().write(tx, big))
                .as(StepVerifier::create)
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(PayloadTooLargeException.class)
                        .hasMessageContaining("is 1048577 bytes, more than the writer's limit of 1048576 bytes"))
                .verify(TIMEOUT);
    }

    @Test
    void invalidMessagesAreRejectedWhenBuilt() {
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> OutboxMessage.builder("..", "T"))
                .withMessageContaining("topic");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> OutboxMessage.builder("orders", " "))
                .withMessageContaining("type");
        org.assertj.core.api.Assertions.assertThatIllegalStateException()
                .isThrownBy(() -> OutboxMessage.builder("orders", "T").build())
                .withMessageContaining("payload");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> OutboxWriter.forSchema("bad-schema"))
                .withMessageContaining("schema");
        for (String reserved : new String[] {"ce_id", "CE_SpecVersion", "message-id", "Content-Type",
                "dispatcher-attempts"}) {
            org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                    .isThrownBy(() -> OutboxMessage.builder("orders", "T").header(reserved, "victim-1"))
                    .withMessageContaining("'" + reserved + "' is reserved");
        }
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> OutboxMessage.builder("orders", "T").jsonPayload("{}")
                        .deliverAt(java.time.Instant.now()).delay(Duration.ofSeconds(1)).build())
                .withMessageContaining("not both");
    }

    private static int countOrders(String orderId) throws SQLException {
        return count("SELECT count(*) FROM " + schema + ".orders WHERE id = ?", orderId);
    }

    private static int countOutbox(UUID id) throws SQLException {
        return count("SELECT count(*) FROM " + schema + ".outbox_message WHERE id = ?", id);
    }

    private static int count(String sql, Object parameter) throws SQLException {
        try (java.sql.Connection c = postgres.openConnection(); PreparedStatement q = c.prepareStatement(sql)) {
            q.setObject(1, parameter);
            try (ResultSet rows = q.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }
}
