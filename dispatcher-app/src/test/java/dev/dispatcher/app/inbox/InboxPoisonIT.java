package dev.dispatcher.app.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.WebhookSink;
import dev.dispatcher.app.observe.DispatcherMetrics;
import io.micrometer.core.instrument.Counter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Records that cannot be stored as received never stop their partition (real Kafka and PostgreSQL): each odd record
 * comes first on its partition, ordinary ones after it; every ordinary record is handled, the odd one ends handled
 * losslessly or {@code DEAD_LETTERED} with its position, raw key and reason (read through a separate connection),
 * the group's committed offset passes it, and each poison record is counted once.
 */
class InboxPoisonIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int ORDINARY = 40;
    /** A key in Confluent's wire format: magic byte 0x00, a 4-byte schema id, then the Avro bytes. */
    private static final byte[] CONFLUENT_KEY = {0x00, 0x00, 0x00, 0x00, 0x2a, 0x0e, 'o', 'r', 'd', '-', '4', '2'};

    @Test
    void aNulKeyedRecordIsStoredLosslesslyAndHandledAndTheRecordsBehindItFlow() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_nul_key"); WebhookSink sink = WebhookSink.start()) {
            String topic = fx.topic("nulkey", 1);
            fx.sendRaw(topic, 0, CONFLUENT_KEY, utf8("{\"odd\":true}"), "message-id", "odd-1");
            sendOrdinary(fx, topic);
            DispatcherMetrics metrics = InboxFixture.metrics();
            fx.consumer(fx.receiver(topic, "nulkey-group"), WebhookHandler.create(sink.url(), Duration.ofSeconds(5),
                    4), InboxFixture.settings("nulkey", "nulkey-1"), metrics);

            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE status = 'COMPLETED'", ORDINARY + 1, WAIT);
            awaitCommitted(fx, "nulkey-group", topic, ORDINARY + 1);

            try (Connection c = fx.jdbc(); PreparedStatement q = c.prepareStatement("SELECT message_key,"
                    + " message_key_bytes, source_offset, last_error FROM inbox_message WHERE message_id = 'odd-1'");
                    ResultSet row = q.executeQuery()) {
                assertThat(row.next()).isTrue();
                assertThat(row.getString("message_key")).isNull();
                assertThat(row.getBytes("message_key_bytes")).isEqualTo(CONFLUENT_KEY);
                assertThat(row.getLong("source_offset")).isZero();
                assertThat(row.getString("last_error")).isNull();
            }
            // the webhook gets the raw key, base64; ordinary keys the same way
            WebhookSink.Request odd = sink.await("odd-1", WAIT).orElseThrow();
            assertThat(Base64.getDecoder().decode(odd.header("Message-Key-Base64"))).isEqualTo(CONFLUENT_KEY);
            assertThat(new String(Base64.getDecoder().decode(sink.await("ok-7", WAIT).orElseThrow()
                    .header("Message-Key-Base64")), StandardCharsets.UTF_8)).isEqualTo("k-ok-7");
            assertThat(sink.requests()).hasSize(ORDINARY + 1);
            assertThat(poison(metrics, "nulkey")).isZero();
        }
    }

    @Test
    void aHeaderThatIsNotUtf8IsDeadLetteredWithItsPositionRawKeyAndReason() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_bad_header")) {
            String topic = fx.topic("badheader", 1);
            fx.sendRaw(topic, 0, CONFLUENT_KEY, utf8("{\"odd\":true}"), "message-id", "odd-2",
                    "x-tenant", new byte[] {(byte) 0xC3, 0x28, 0x00});
            sendOrdinary(fx, topic);
            DispatcherMetrics metrics = InboxFixture.metrics();
            fx.consumer(fx.receiver(topic, "badheader-group"), InboxFixture.effectHandler(),
                    InboxFixture.settings("badheader", "badheader-1"), metrics);

            fx.awaitCount("SELECT count(*) FROM effect", ORDINARY, WAIT);
            awaitCommitted(fx, "badheader-group", topic, ORDINARY + 1);

            assertDeadLettered(fx, "odd-2", topic, 0, "header 'x-tenant' is not UTF-8 text");
            assertThat(fx.count("SELECT count(*) FROM inbox_message WHERE message_id = 'odd-2'"
                    + " AND convert_from(payload, 'UTF8') = '{\"odd\":true}' AND headers ? 'message-id'"
                    + " AND NOT headers ? 'x-tenant'")).as("the value and the other headers are kept").isEqualTo(1);
            assertThat(fx.count("SELECT count(*) FROM effect WHERE message_id = 'odd-2'")).isZero();
            assertThat(fx.count("SELECT count(*) FROM inbox_message WHERE status = 'COMPLETED'")).isEqualTo(ORDINARY);
            assertThat(poison(metrics, "badheader")).isEqualTo(1);
        }
    }

    @Test
    void aValueOverTheLimitIsDeadLetteredWithoutIt() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_too_large")) {
            String topic = fx.topic("toolarge", 1);
            fx.sendRaw(topic, 0, utf8("big"), new byte[4096], "message-id", "odd-3");
            sendOrdinary(fx, topic);
            DispatcherMetrics metrics = InboxFixture.metrics();
            fx.consumer(fx.receiver(topic, "toolarge-group"), InboxFixture.effectHandler(),
                    InboxFixture.settings("toolarge", "toolarge-1", 1024), metrics);

            fx.awaitCount("SELECT count(*) FROM effect", ORDINARY, WAIT);
            awaitCommitted(fx, "toolarge-group", topic, ORDINARY + 1);

            assertDeadLettered(fx, "odd-3", topic, 0, "value of 4096 bytes is over the consumer's limit of 1024");
            assertThat(fx.count("SELECT count(*) FROM inbox_message WHERE message_id = 'odd-3' AND payload IS NULL"
                    + " AND message_key = 'big'")).isEqualTo(1);
            assertThat(poison(metrics, "toolarge")).isEqualTo(1);
        }
    }

    /**
     * The safety net: a value every check lets through but the database refuses (here a CHECK constraint the
     * service does not know of) fails the batch's insert; the batch is stored record by record and that record is
     * dead-lettered with the database's reason, in the same poll as ordinary records before and after it.
     */
    @Test
    void aValueTheDatabaseRefusesIsIsolatedAndDeadLetteredWithTheDatabasesReason() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_refused")) {
            try (Connection c = fx.jdbc(); Statement s = c.createStatement()) {
                s.execute("ALTER TABLE inbox_message ADD CONSTRAINT no_refused_events"
                        + " CHECK (event_type IS DISTINCT FROM 'Refused')");
            }
            String topic = fx.topic("refused", 1);
            sendOrdinary(fx, topic, "before-");
            fx.sendRaw(topic, 0, utf8("k-odd"), utf8("{}"), "message-id", "odd-4", "event-type", "Refused");
            sendOrdinary(fx, topic, "after-");
            DispatcherMetrics metrics = InboxFixture.metrics();
            fx.consumer(fx.receiver(topic, "refused-group"), InboxFixture.effectHandler(),
                    InboxFixture.settings("refused", "refused-1"), metrics);

            fx.awaitCount("SELECT count(*) FROM effect", 2 * ORDINARY, WAIT);
            awaitCommitted(fx, "refused-group", topic, 2 * ORDINARY + 1);

            assertDeadLettered(fx, "odd-4", topic, ORDINARY, "SQLSTATE 23514");
            assertThat(fx.count("SELECT count(*) FROM inbox_message WHERE message_id = 'odd-4'"
                    + " AND last_error LIKE '%no_refused_events%' AND headers = '{}'::jsonb AND payload IS NULL"
                    + " AND message_key IS NULL AND message_key_bytes = convert_to('k-odd', 'UTF8')")).isEqualTo(1);
            assertThat(fx.count("SELECT count(*) FROM effect WHERE message_id = 'odd-4'")).isZero();
            assertThat(poison(metrics, "refused")).isEqualTo(1);
        }
    }

    /** The same poison record twice (a re-publication with its id) is stored, counted and logged once. */
    @Test
    void aPoisonRecordSeenTwiceIsADuplicateNotASecondPoison() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_poison_twice")) {
            String topic = fx.topic("twice", 1);
            for (int i = 0; i < 2; i++) {
                fx.sendRaw(topic, 0, null, utf8("{}"), "message-id", "odd-5", "x-bad", new byte[] {(byte) 0xFF});
            }
            DispatcherMetrics metrics = InboxFixture.metrics();
            fx.consumer(fx.receiver(topic, "twice-group"), InboxFixture.effectHandler(),
                    InboxFixture.settings("twice", "twice-1"), metrics);

            awaitCommitted(fx, "twice-group", topic, 2);
            assertThat(fx.count("SELECT count(*) FROM inbox_message WHERE status = 'DEAD_LETTERED'")).isEqualTo(1);
            assertThat(poison(metrics, "twice")).isEqualTo(1);
            assertThat(InboxFixture.counter(metrics, "duplicate")).isEqualTo(1);
        }
    }

    // ---- helpers

    private static void sendOrdinary(InboxFixture fx, String topic) throws Exception {
        sendOrdinary(fx, topic, "ok-");
    }

    private static void sendOrdinary(InboxFixture fx, String topic, String prefix) throws Exception {
        for (int i = 0; i < ORDINARY; i++) {
            fx.send(topic, 0, prefix + i, "{\"n\":" + i + "}");
        }
    }

    private static void assertDeadLettered(InboxFixture fx, String id, String topic, long offset, String reason)
            throws Exception {
        Map<String, Object> row = new ConcurrentHashMap<>();
        try (Connection c = fx.jdbc(); PreparedStatement q = c.prepareStatement("SELECT status, source_topic,"
                + " source_partition, source_offset, last_error, dead_lettered_at IS NOT NULL AS dated, attempts,"
                + " coalesce(message_key_bytes, convert_to(message_key, 'UTF8')) IS NOT NULL AS keyed"
                + " FROM inbox_message WHERE message_id = ?")) {
            q.setString(1, id);
            try (ResultSet rs = q.executeQuery()) {
                assertThat(rs.next()).as("a row for " + id).isTrue();
                row.put("status", rs.getString("status"));
                row.put("topic", rs.getString("source_topic"));
                row.put("partition", rs.getInt("source_partition"));
                row.put("offset", rs.getLong("source_offset"));
                row.put("error", rs.getString("last_error"));
                row.put("dated", rs.getBoolean("dated"));
                row.put("attempts", rs.getInt("attempts"));
                row.put("keyed", rs.getBoolean("keyed"));
            }
        }
        assertThat(row).containsEntry("status", "DEAD_LETTERED").containsEntry("topic", topic)
                .containsEntry("partition", 0).containsEntry("offset", offset).containsEntry("dated", true)
                .containsEntry("attempts", 0).containsEntry("keyed", true);
        assertThat((String) row.get("error")).contains(reason);
    }

    private static void awaitCommitted(InboxFixture fx, String group, String topic, long offset) throws Exception {
        InboxFixture.await("offset " + offset + " committed", () -> {
            try {
                OptionalLong committed = fx.committed(group, topic, 0);
                return committed.isPresent() && committed.getAsLong() == offset;
            } catch (Exception e) {
                return false;
            }
        }, WAIT);
        assertThat(fx.endOffset(topic, 0)).isEqualTo(offset);
    }

    private static double poison(DispatcherMetrics metrics, String consumer) {
        Counter c = metrics.registry().find("dispatcher.inbox.poison").tag("consumer", consumer).counter();
        return c == null ? 0 : c.count();
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
