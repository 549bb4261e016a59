package dev.dispatcher.app.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.queue.Retention;
import dev.dispatcher.app.store.InboxStore;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Inbox retention on real PostgreSQL: each consumer's completed rows past {@code inbox-completed} and its dead
 * letters past {@code inbox-dead-lettered} (poison records without a stored value included) are deleted; younger
 * rows, live rows and other consumers' rows stay.
 */
class InboxRetentionIT {

    @Test
    void deadLettersPastTheirRetentionArePurgedAndNothingElse() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_retention")) {
            try (Connection c = fx.jdbc(); Statement s = c.createStatement()) {
                s.execute(row("orders", "old-dead", "DEAD_LETTERED", "now() - interval '40 days'", "NULL"));
                s.execute(row("orders", "old-poison", "DEAD_LETTERED", "now() - interval '31 days'", "NULL")
                        .replace("convert_to('{}', 'UTF8')", "NULL"));
                s.execute(row("orders", "young-dead", "DEAD_LETTERED", "now() - interval '29 days'", "NULL"));
                s.execute(row("orders", "old-done", "COMPLETED", "NULL", "now() - interval '8 days'"));
                s.execute(row("orders", "young-done", "COMPLETED", "NULL", "now() - interval '6 days'"));
                s.execute(row("orders", "old-live", "PENDING", "NULL", "NULL"));
                s.execute(row("billing", "other-old-dead", "DEAD_LETTERED", "now() - interval '40 days'", "NULL"));
            }
            InboxStore store = InboxStore.r2dbc(fx.pool("retention", 2));
            Retention retention = Retention.inbox(List.of(store.consumer("orders")), Duration.ofDays(7),
                    Duration.ofDays(30));

            assertThat(retention.purge().block(Duration.ofSeconds(30))).isEqualTo(3); // test thread

            try (Connection c = fx.jdbc(); Statement s = c.createStatement();
                    var rows = s.executeQuery("SELECT string_agg(message_id, ',' ORDER BY message_id)"
                            + " FROM inbox_message")) {
                rows.next();
                assertThat(rows.getString(1)).isEqualTo("old-live,other-old-dead,young-dead,young-done");
            }
        }
    }

    private static String row(String consumer, String id, String status, String deadLetteredAt, String completedAt) {
        return "INSERT INTO inbox_message (consumer_name, message_id, source_topic, source_partition, source_offset,"
                + " payload, status, dead_lettered_at, completed_at, created_at) VALUES ('" + consumer + "', '" + id
                + "', 't', 0, 0, convert_to('{}', 'UTF8'), '" + status + "', " + deadLetteredAt + ", " + completedAt
                + ", now() - interval '60 days')";
    }
}
