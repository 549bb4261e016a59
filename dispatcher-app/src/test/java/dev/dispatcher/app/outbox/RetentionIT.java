package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.queue.Retention;
import dev.dispatcher.app.store.AuditTrail;
import dev.dispatcher.app.store.OutboxStore;
import io.r2dbc.pool.ConnectionPool;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Retention deletes only finished rows past their age, in bounded batches, and keeps everything else. */
class RetentionIT {

    @Test
    void deletesOldFinishedRowsAndAuditInBoundedBatchesAndKeepsLiveAndRecentRows() throws Exception {
        try (RelayFixture fx = new RelayFixture("retention")) {
            try (Connection c = fx.jdbc(); Statement s = c.createStatement()) {
                // 2,500 delivered 10 days ago (more than two purge batches), 10 delivered just now,
                // 5 dead-lettered 10 days ago (kept: dead letters are kept 30 days), 20 live rows created long ago.
                s.execute("""
                        INSERT INTO outbox_message (topic, event_type, payload, status, created_at, delivered_at)
                        SELECT 't', 'E', '\\x00', 'DELIVERED', now() - interval '10 days', now() - interval '10 days'
                          FROM generate_series(1, 2500)""");
                s.execute("""
                        INSERT INTO outbox_message (topic, event_type, payload, status, delivered_at)
                        SELECT 't', 'E', '\\x00', 'DELIVERED', now() FROM generate_series(1, 10)""");
                s.execute("""
                        INSERT INTO outbox_message (topic, event_type, payload, status, created_at, dead_lettered_at)
                        SELECT 't', 'E', '\\x00', 'DEAD_LETTERED', now() - interval '10 days', now() - interval '10 days'
                          FROM generate_series(1, 5)""");
                s.execute("""
                        INSERT INTO outbox_message (topic, event_type, payload, created_at)
                        SELECT 't', 'E', '\\x00', now() - interval '100 days' FROM generate_series(1, 20)""");
                s.execute("""
                        INSERT INTO dispatch_audit (actor, action, occurred_at)
                        SELECT 'ops', 'replay', now() - interval '100 days' FROM generate_series(1, 30)""");
                s.execute("INSERT INTO dispatch_audit (actor, action) VALUES ('ops', 'pause')");
            }
            ConnectionPool pool = fx.pool("retention");
            Retention retention = Retention.outbox(OutboxStore.r2dbc(pool), AuditTrail.r2dbc(pool), Duration.ofDays(7),
                    Duration.ofDays(30), Duration.ofDays(90));

            Long deleted = retention.purge().block(Duration.ofSeconds(60));

            assertThat(deleted).isEqualTo(2500 + 30);
            assertThat(fx.statusCounts()).containsEntry("DELIVERED", 10L).containsEntry("DEAD_LETTERED", 5L)
                    .containsEntry("PENDING", 20L);
            try (Connection c = fx.jdbc(); var rows = c.createStatement().executeQuery(
                    "SELECT count(*) FROM dispatch_audit")) {
                rows.next();
                assertThat(rows.getLong(1)).isEqualTo(1);
            }
            assertThat(retention.purge().block(Duration.ofSeconds(30))).as("a second pass finds nothing").isZero();
        }
    }
}
