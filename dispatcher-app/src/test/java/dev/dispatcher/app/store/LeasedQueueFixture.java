package dev.dispatcher.app.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.domain.LeasedMessage;
import dev.dispatcher.domain.MessageState;
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
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * What {@link LeasedQueueContract}'s tests stand on: a pool on the shared embedded PostgreSQL with a schema of the
 * queue's own, the queue under test created afresh on an emptied table before each test, and the support the tests
 * share: claims and transitions through the queue, and reads and writes of durable state through a separate JDBC
 * connection, never through the code under test.
 *
 * @param <M> the queue's claimed row type
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LeasedQueueFixture<M extends Claimed> {

    static final Duration BLOCK = Duration.ofSeconds(20);
    static final Duration LEASE = Duration.ofSeconds(30);
    static final Transition DELIVER = new Transition.Deliver();

    /**
     * Deliver alone: the one-row fast statement ({@code DELIVER_ONE}); a row it did not write is classified by the
     * one-row classified statement with the fast statement's snapshot.
     */
    static final String ONE_ROW_FORM = "one-row form";
    /**
     * Deliver first, beside another lease's Deliver: ours takes the one-row fast statement (the first Deliver's
     * token), the other the classified statement.
     */
    static final String ARRAY_FORM = "array form";
    /**
     * Deliver after another lease's Deliver: the other takes the fast statement and ours the one-row classified
     * statement alone, with its own snapshot.
     */
    static final String CLASSIFIED_FORM = "classified form";
    /**
     * Deliver with a second row of the same lease: both in the fast statement; a row it did not write is
     * classified by the one-row form with the fast statement's snapshot.
     */
    static final String FAST_BATCH_FORM = "fast batch form";

    final PostgresServer postgres = TestServers.postgres();
    final String schema = postgres.createSchema(prefix());
    final ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(
                    new PostgresqlConnectionFactory(PostgresqlConnectionConfiguration.builder()
                            .host(postgres.host()).port(postgres.port()).database(postgres.database())
                            .username(postgres.username()).password(postgres.password())
                            .schema(schema).applicationName(prefix() + "-contract")
                            .forceBinary(true) // as the service (see DatabaseConfiguration)
                            .build()))
            .initialSize(0).maxSize(6).validationQuery("SELECT 1").build());
    LeasedQueue<M> queue;

    /** The schema prefix of this queue's tests. */
    abstract String prefix();

    /** A fresh queue under test on {@code pool}. */
    abstract LeasedQueue<M> create(ConnectionPool pool);

    /** The table. */
    abstract String table();

    /** The condition selecting one row by id, with one {@code ?} (plus the consumer for a scoped table). */
    abstract String rowCondition();

    /** The id as JDBC binds it ({@code uuid} or {@code text}). */
    abstract Object idParameter(String id);

    /** Inserts one row visible after {@code visibleDelay}; returns its id as text. */
    abstract String insert(Duration visibleDelay) throws SQLException;

    /** The column {@code Deliver} timestamps. */
    abstract String successAtColumn();

    /** The status {@code Deliver} writes. */
    abstract String successStatus();

    @BeforeEach
    void emptyTable() throws Exception {
        exec("DELETE FROM " + table());
        queue = create(pool);
    }

    @AfterAll
    void closePool() {
        pool.dispose();
    }


    // ---------------------------------------------------------------- support

    /**
     * Delivers {@code m} with the one-row statement (a request alone) or the array statement (beside a request for
     * a second, unrelated row claimed for this), and emits {@code m}'s result.
     */
    CompletableFuture<TransitionResult> deliverInForm(M m, String form) throws Exception {
        List<TransitionRequest> requests = new java.util.ArrayList<>();
        requests.add(new TransitionRequest(m.leased(), DELIVER));
        switch (form) {
            case ONE_ROW_FORM -> {
            }
            case ARRAY_FORM -> requests.add(new TransitionRequest(companion().leased(), DELIVER));
            case CLASSIFIED_FORM -> requests.addFirst(new TransitionRequest(companion().leased(), DELIVER));
            case FAST_BATCH_FORM -> {
                // a second row of m's own claimed batch: the companion's lease moved under m's token
                LeasedMessage other = companion().leased();
                update("lease_token = '" + m.leased().lease().token() + "'", other.id().value());
                requests.add(new TransitionRequest(new LeasedMessage(other.id(), m.leased().lease(),
                        other.version(), other.attempts(), other.status(), other.key(), other.seq()), DELIVER));
            }
            default -> throw new IllegalArgumentException(form);
        }
        String id = m.leased().id().value();
        return queue.transition(requests)
                .map(results -> {
                    assertThat(results).hasSize(requests.size());
                    return results.stream().filter(r -> r.entry().id().value().equals(id)).findFirst().orElseThrow();
                })
                .toFuture();
    }

    /** A second, unrelated row, claimed under its own lease. */
    M companion() throws SQLException {
        insert();
        return claimOne("worker-companion");
    }

    LeasedQueue<M> queue() {
        return queue;
    }

    String insert() throws SQLException {
        return insert(Duration.ZERO);
    }

    List<M> claim(String owner, int limit) {
        return queue.claim(owner, limit, LEASE).block(BLOCK);
    }

    M claimOne(String owner) {
        List<M> batch = claim(owner, 10);
        assertThat(batch).hasSize(1);
        return batch.getFirst();
    }

    List<TransitionResult> transition(M m, Transition t) {
        return queue.transition(List.of(new TransitionRequest(m.leased(), t))).block(BLOCK);
    }

    static TransitionResult single(List<TransitionResult> results) {
        assertThat(results).hasSize(1);
        return results.getFirst();
    }

    Connection jdbc() throws SQLException {
        return postgres.openConnection(schema);
    }

    int exec(String sql, Object... args) throws SQLException {
        try (Connection c = jdbc(); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                s.setObject(i + 1, args[i]);
            }
            return s.executeUpdate();
        }
    }

    void update(String assignments, String id) throws SQLException {
        assertThat(exec("UPDATE " + table() + " SET " + assignments + " WHERE " + rowCondition(), idParameter(id)))
                .isEqualTo(1);
    }

    void delete(String id) throws SQLException {
        assertThat(exec("DELETE FROM " + table() + " WHERE " + rowCondition(), idParameter(id))).isEqualTo(1);
    }

    /** Moves the lease of {@code id} into the past, as if its worker had stalled for longer than the lease. */
    void expireLease(String id) throws SQLException {
        update("lease_until = now() - interval '1 second'", id);
    }

    Optional<Row> row(String id) throws SQLException {
        try (Connection c = jdbc(); PreparedStatement s = c.prepareStatement("SELECT status, attempts, lease_owner,"
                + " lease_token, lease_until, version, visible_after, " + successAtColumn() + " AS finished_at,"
                + " dead_lettered_at, last_error FROM " + table() + " WHERE " + rowCondition())) {
            s.setObject(1, idParameter(id));
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? Optional.of(Row.of(id, rs)) : Optional.empty();
            }
        }
    }

    Row existing(String id) throws SQLException {
        return row(id).orElseThrow(() -> new AssertionError("row " + id + " is missing"));
    }

    static void assertEntryIsRow(MessageState entry, Row row) {
        assertThat(entry.id().value()).isEqualTo(row.id());
        assertThat(entry.status().name()).isEqualTo(row.status());
        assertThat(entry.leaseToken()).isEqualTo(row.leaseToken());
        assertThat(entry.leaseUntil()).isEqualTo(row.leaseUntil());
        assertThat(entry.version()).isEqualTo(row.version());
        assertThat(entry.attempts()).isEqualTo(row.attempts());
    }

    /** A durable row of either table, as read through JDBC. */
    record Row(String id, String status, int attempts, String leaseOwner, java.util.UUID leaseToken,
            Instant leaseUntil, long version, Instant visibleAfter, Instant finishedAt, Instant deadLetteredAt,
            String lastError) {

        static Row of(String id, ResultSet rs) throws SQLException {
            return new Row(id, rs.getString("status"), rs.getInt("attempts"), rs.getString("lease_owner"),
                    rs.getObject("lease_token", java.util.UUID.class), instant(rs.getTimestamp("lease_until")),
                    rs.getLong("version"), instant(rs.getTimestamp("visible_after")),
                    instant(rs.getTimestamp("finished_at")), instant(rs.getTimestamp("dead_lettered_at")),
                    rs.getString("last_error"));
        }

        private static Instant instant(Timestamp t) {
            return t == null ? null : t.toInstant();
        }
    }
}
