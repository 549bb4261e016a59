package dev.dispatcher.app.store;

import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionResult;
import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * A fresh outbox schema on the shared PostgreSQL with a pooled R2DBC factory for the store under test and plain
 * JDBC connections for seeding and verification (independent of the code under test). Close it to close the pool.
 */
final class StoreTestDb implements AutoCloseable {

    static final Duration BLOCK = Duration.ofSeconds(20);

    final PostgresServer postgres = TestServers.postgres();
    final String schema;
    final ConnectionPool pool;

    StoreTestDb(String prefix) {
        this.schema = postgres.createSchema(prefix);
        PostgresqlConnectionFactory direct = new PostgresqlConnectionFactory(PostgresqlConnectionConfiguration.builder()
                .host(postgres.host()).port(postgres.port()).database(postgres.database())
                .username(postgres.username()).password(postgres.password())
                .schema(schema).applicationName(prefix + "-store")
                .forceBinary(true) // as the service: binary results (see DatabaseConfiguration)
                .build());
        this.pool = new ConnectionPool(ConnectionPoolConfiguration.builder(direct)
                .initialSize(0).maxSize(6).validationQuery("SELECT 1").build());
    }

    /** A new store on the pool: each store has its own per-key walk cursor, like a separate relay. */
    OutboxStore store() {
        return OutboxStore.r2dbc(pool);
    }

    Connection jdbc() throws SQLException {
        return postgres.openConnection(schema);
    }

    /** Inserts one row with {@code key} (null: none) visible after {@code visibleDelay} from now; returns its id. */
    UUID insert(String key, Duration visibleDelay) throws SQLException {
        try (Connection c = jdbc(); PreparedStatement s = c.prepareStatement("""
                INSERT INTO outbox_message (id, topic, message_key, event_type, payload, visible_after)
                VALUES (?, 'store-topic', ?, 'TestEvent', '\\x7b7d'::bytea,
                        now() + ?::bigint * interval '1 millisecond')
                """)) {
            UUID id = UUID.randomUUID();
            s.setObject(1, id);
            s.setString(2, key);
            s.setLong(3, visibleDelay.toMillis());
            s.executeUpdate();
            return id;
        }
    }

    /** Inserts one visible row per element of {@code keys} (null: no key), in list order, on one connection. */
    List<UUID> insertAll(List<String> keys) throws SQLException {
        List<UUID> ids = new ArrayList<>(keys.size());
        try (Connection c = jdbc(); PreparedStatement s = c.prepareStatement("""
                INSERT INTO outbox_message (id, topic, message_key, event_type, payload)
                VALUES (?, 'store-topic', ?, 'TestEvent', '\\x7b7d'::bytea)""")) {
            for (String key : keys) {
                UUID id = UUID.randomUUID();
                s.setObject(1, id);
                s.setString(2, key);
                s.executeUpdate();
                ids.add(id);
            }
        }
        return ids;
    }

    UUID insert(String key) throws SQLException {
        return insert(key, Duration.ZERO);
    }

    /** Runs one statement through JDBC (autocommit) and returns the update count. */
    int exec(String sql, Object... args) throws SQLException {
        try (Connection c = jdbc(); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                s.setObject(i + 1, args[i]);
            }
            return s.executeUpdate();
        }
    }

    /** The durable row as a fresh JDBC connection sees it, or empty. */
    Optional<Row> row(UUID id) throws SQLException {
        try (Connection c = jdbc(); PreparedStatement s = c.prepareStatement("""
                SELECT id, seq, message_key, status, attempts, lease_owner, lease_token, lease_until, version,
                       visible_after, delivered_at, dead_lettered_at, last_error
                  FROM outbox_message WHERE id = ?""")) {
            s.setObject(1, id);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? Optional.of(Row.of(rs)) : Optional.empty();
            }
        }
    }

    Row existing(UUID id) throws SQLException {
        return row(id).orElseThrow(() -> new AssertionError("row " + id + " is missing"));
    }

    /** Seqs of the live keyed rows by key, each in seq order, in one query. */
    java.util.Map<String, List<Long>> liveSeqsByKey() throws SQLException {
        java.util.Map<String, List<Long>> byKey = new java.util.HashMap<>();
        try (Connection c = jdbc(); ResultSet rs = c.createStatement().executeQuery("""
                SELECT message_key, seq FROM outbox_message
                 WHERE message_key IS NOT NULL AND status IN ('PENDING', 'RETRY_SCHEDULED') ORDER BY seq""")) {
            while (rs.next()) {
                byKey.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getLong(2));
            }
        }
        return byKey;
    }

    /** Seqs of the live rows of {@code key} in seq order. */
    List<Long> liveSeqs(String key) throws SQLException {
        List<Long> seqs = new ArrayList<>();
        try (Connection c = jdbc(); PreparedStatement s = c.prepareStatement("""
                SELECT seq FROM outbox_message
                 WHERE message_key = ? AND status IN ('PENDING', 'RETRY_SCHEDULED') ORDER BY seq""")) {
            s.setString(1, key);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    seqs.add(rs.getLong(1));
                }
            }
        }
        return seqs;
    }

    List<ClaimedOutboxMessage> claim(OutboxStore store, String owner, int limit, Duration lease, Ordering ordering) {
        return store.claimBatch(owner, limit, lease, ordering).block(BLOCK);
    }

    List<TransitionResult> transition(OutboxStore store, ClaimedOutboxMessage m, Transition t) {
        return store.transition(List.of(new TransitionRequest(m.leased(), t))).block(BLOCK);
    }

    /** Moves the lease of {@code id} into the past, as if its worker had stalled for longer than the lease. */
    void expireLease(UUID id) throws SQLException {
        int n = exec("UPDATE outbox_message SET lease_until = now() - interval '1 second' WHERE id = ?", id);
        if (n != 1) {
            throw new AssertionError("expected to expire one lease, updated " + n);
        }
    }

    @Override
    public void close() {
        pool.dispose();
    }

    /** A durable outbox row, as read through JDBC. */
    record Row(UUID id, long seq, String key, String status, int attempts, String leaseOwner, UUID leaseToken,
            Instant leaseUntil, long version, Instant visibleAfter, Instant deliveredAt, Instant deadLetteredAt,
            String lastError) {

        static Row of(ResultSet rs) throws SQLException {
            return new Row(rs.getObject("id", UUID.class), rs.getLong("seq"), rs.getString("message_key"),
                    rs.getString("status"), rs.getInt("attempts"), rs.getString("lease_owner"),
                    rs.getObject("lease_token", UUID.class), instant(rs.getTimestamp("lease_until")),
                    rs.getLong("version"), instant(rs.getTimestamp("visible_after")),
                    instant(rs.getTimestamp("delivered_at")), instant(rs.getTimestamp("dead_lettered_at")),
                    rs.getString("last_error"));
        }

        private static Instant instant(Timestamp t) {
            return t == null ? null : t.toInstant();
        }
    }
}
