package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.sql.OutboxSql;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Single-message ingest is one autocommit statement (key lock and insert together); these races show it keeps the
 * contracts the separate statements had. A second JDBC connection holds the key's writer lock, or an uncommitted
 * row with the same id, waits until the ingest's statement is blocked on it ({@code pg_blocking_pids}), then lets
 * it go. Durable state is checked through fresh connections.
 */
class IngestConcurrencyIT extends ApiTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void aKeyedIngestTakesItsSeqOnlyAfterTheKeyLockIsFree() throws Exception {
        String topic = uniqueTopic("keylock");
        String key = "k-" + UUID.randomUUID();
        UUID id = UUID.randomUUID();
        try (Connection holder = jdbc()) {
            holder.setAutoCommit(false);
            // the writer lock every producer of this key takes (OutboxWriter, ingest), held until commit
            try (PreparedStatement lock = holder.prepareStatement(OutboxSql.LOCK_KEY.replace("$1", "?"))) {
                lock.setString(1, key);
                lock.execute();
            }
            long seqBefore = lastSeq();

            CompletableFuture<Integer> ingest = post(IngestApiIT.item(id, topic, key, "1"));
            awaitBlockedBy(backendPid(holder));

            assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ?", id)).as("nothing inserted").isZero();
            assertThat(lastSeq()).as("no seq allocated while waiting for the key lock").isEqualTo(seqBefore);

            // another writer of the key, which took the lock first, inserts and commits
            long otherSeq;
            try (PreparedStatement insert = holder.prepareStatement("INSERT INTO outbox_message (topic, message_key,"
                    + " event_type, payload) VALUES (?, ?, 'T', '1'::bytea) RETURNING seq")) {
                insert.setString(1, topic);
                insert.setString(2, key);
                try (ResultSet row = insert.executeQuery()) {
                    row.next();
                    otherSeq = row.getLong(1);
                }
            }
            holder.commit();

            assertThat(ingest.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(202);
            assertThat(count("SELECT seq FROM outbox_message WHERE id = ?", id))
                    .as("the key's rows commit in seq order").isGreaterThan(otherSeq);
        }
    }

    @Test
    void aRepeatOfAnIdStillBeingInsertedWaitsAndIs200WhenTheSameContentCommits() throws Exception {
        UUID id = UUID.randomUUID();
        String topic = uniqueTopic("pending-dup");
        try (Connection holder = jdbc()) {
            holder.setAutoCommit(false);
            insertUncommitted(holder, id, topic, "k", "1");

            CompletableFuture<Integer> ingest = post(IngestApiIT.item(id, topic, "k", "1"));
            awaitBlockedBy(backendPid(holder));
            holder.commit();

            assertThat(ingest.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(200);
        }
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ?", id)).isEqualTo(1);
    }

    @Test
    void aRepeatOfAnIdStillBeingInsertedIs409WhenOtherContentCommits() throws Exception {
        UUID id = UUID.randomUUID();
        String topic = uniqueTopic("pending-conflict");
        try (Connection holder = jdbc()) {
            holder.setAutoCommit(false);
            insertUncommitted(holder, id, topic, null, "1");

            CompletableFuture<Integer> ingest = post(IngestApiIT.item(id, topic, null, "2"));
            awaitBlockedBy(backendPid(holder));
            holder.commit();

            assertThat(ingest.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(409);
        }
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ? AND payload = '1'::bytea", id))
                .isEqualTo(1);
    }

    @Test
    void anIdWhoseOtherInsertRollsBackIsAcceptedAfterAll() throws Exception {
        UUID id = UUID.randomUUID();
        String topic = uniqueTopic("pending-rollback");
        try (Connection holder = jdbc()) {
            holder.setAutoCommit(false);
            insertUncommitted(holder, id, topic, "k", "1");

            CompletableFuture<Integer> ingest = post(IngestApiIT.item(id, topic, "k", "2"));
            awaitBlockedBy(backendPid(holder));
            holder.rollback();

            assertThat(ingest.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(202);
        }
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ? AND payload = '2'::bytea", id))
                .isEqualTo(1);
    }

    /** Inserts the row an ingest of {@code IngestApiIT.item(id, topic, key, payload)} would, without committing. */
    private static void insertUncommitted(Connection holder, UUID id, String topic, String key, String payload)
            throws SQLException {
        try (PreparedStatement insert = holder.prepareStatement("INSERT INTO outbox_message (id, topic, message_key,"
                + " event_type, payload) VALUES (?, ?, ?, 'T', ?)")) {
            insert.setObject(1, id);
            insert.setString(2, topic);
            insert.setString(3, key);
            insert.setBytes(4, payload.getBytes(StandardCharsets.UTF_8));
            insert.executeUpdate();
        }
    }

    /** The last identity value handed out for {@code seq} (0 before the first). */
    private static long lastSeq() {
        return count("SELECT coalesce(pg_sequence_last_value("
                + "pg_get_serial_sequence('outbox_message', 'seq')::regclass), 0)");
    }

    /**
     * Waits until the ingest statement is blocked by backend {@code pid} (the only statement of the service that
     * can wait for the lock or row it holds; pg_stat_activity keeps only the first kilobyte of its text).
     */
    static void awaitBlockedBy(int pid) {
        await("an ingest blocked by backend " + pid).atMost(WAIT).pollInterval(Duration.ofMillis(10))
                .until(() -> count("SELECT count(*) FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))"
                        + " AND query LIKE 'WITH input AS MATERIALIZED%'", pid) > 0);
    }
}
