package dev.dispatcher.app.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionOutcome;
import dev.dispatcher.domain.TransitionResult;
import dev.dispatcher.sql.InboxSql;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The inbox's per-key claim ({@code ordering=per-key}) and its intake's key locks on real PostgreSQL: a key, text or
 * binary, is held by one lease at a time from its head and its rows go out in seq order; a head waiting to be retried
 * holds back its key only, a dead-lettered one frees it; a consumer's claims never take another consumer's rows; and
 * a key's rows commit in seq order because intake holds the key's lock from before they take their seqs.
 */
class InboxPerKeyClaimIT {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String CONSUMER = "orders";

    private static StoreTestDb db;
    private final AtomicLong offsets = new AtomicLong();

    @BeforeAll
    static void schema() {
        db = new StoreTestDb("inbox_perkey");
    }

    @AfterAll
    static void closeDb() {
        db.close();
    }

    @BeforeEach
    void emptyInbox() throws Exception {
        db.exec("DELETE FROM inbox_message");
    }

    /** A consumer's rows with per-key claims; each call is a separate worker (its own walk cursor). */
    private static InboxStore.Consumer worker() {
        return InboxStore.r2dbc(db.pool).consumer(CONSUMER, Ordering.PER_KEY, Integer.MAX_VALUE);
    }

    /** A key as the test names it: {@code bin:<hex>} is a binary key, anything else a text key, null none. */
    private String insert(String consumer, String key, Duration visibleDelay) throws SQLException {
        String id = "m-" + offsets.incrementAndGet();
        boolean binary = key != null && key.startsWith("bin:");
        db.exec("""
                INSERT INTO inbox_message (consumer_name, message_id, source_topic, source_partition, source_offset,
                                           message_key, message_key_bytes, payload, visible_after)
                VALUES (?, ?, 't', 0, ?, ?, ?, '\\x7b7d'::bytea, now() + ?::bigint * interval '1 millisecond')
                """, consumer, id, offsets.get(), binary ? null : key,
                binary ? HexFormat.of().parseHex(key.substring(4)) : null, visibleDelay.toMillis());
        return id;
    }

    private String insert(String key) throws SQLException {
        return insert(CONSUMER, key, Duration.ZERO);
    }

    private static List<ClaimedInboxMessage> claim(InboxStore.Consumer rows, String owner, int limit) {
        return rows.claim(owner, limit, LEASE).block(StoreTestDb.BLOCK);
    }

    private static List<String> ids(List<ClaimedInboxMessage> batch) {
        return batch.stream().sorted(Comparator.comparingLong(m -> m.leased().seq()))
                .map(m -> m.leased().id().value()).toList();
    }

    /** The key as the test names it. */
    private static String keyName(ClaimedInboxMessage m) {
        return m.keyBytes() != null ? "bin:" + HexFormat.of().formatHex(m.keyBytes()) : m.key();
    }

    private static void transition(InboxStore.Consumer rows, List<ClaimedInboxMessage> batch, Transition t) {
        if (batch.isEmpty()) {
            return;
        }
        List<TransitionResult> results = rows.transition(batch.stream()
                .map(m -> new TransitionRequest(m.leased(), t)).toList()).block(StoreTestDb.BLOCK);
        assertThat(results).extracting(TransitionResult::outcome).containsOnly(TransitionOutcome.APPLIED);
    }

    @Test
    void aClaimTakesAtMostTheKeyRunOfEachKeySoOneClaimSpansManyKeys() throws Exception {
        List<String> keys = List.of("a", "b", "c", "d", "e", "f");
        Map<String, List<String>> byKey = new LinkedHashMap<>();
        for (int n = 0; n < 10; n++) {
            for (String key : keys) {
                byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(insert(key));
            }
        }
        // a key run of 3 rows: a claim of 12 spans 4 keys, where runs as long as the limit gave it the first key's
        InboxStore.Consumer capped = InboxStore.r2dbc(db.pool).consumer(CONSUMER, Ordering.PER_KEY,
                InboxStore.keyRun(12, 4));
        Map<String, List<String>> first = runs(claim(capped, "worker-a", 12));
        assertThat(first).hasSize(4);
        first.forEach((key, run) -> assertThat(run).as("run of %s", key).isEqualTo(byKey.get(key).subList(0, 3)));
        // the rest of a held key is not its head: no other claim takes it while the run is leased
        Map<String, List<String>> second = runs(claim(capped, "worker-b", 60));
        assertThat(second.keySet()).as("keys of the second claim").doesNotContainAnyElementsOf(first.keySet())
                .hasSize(2);
        second.forEach((key, run) -> assertThat(run).isEqualTo(byKey.get(key).subList(0, 3)));

        InboxStore.Consumer uncapped = worker();
        db.exec("DELETE FROM inbox_message");
        List<String> oneKey = new ArrayList<>();
        for (int n = 0; n < 10; n++) {
            oneKey.add(insert("a"));
            insert("b");
        }
        assertThat(runs(claim(uncapped, "worker-c", 10))).as("runs as long as the limit").hasSize(1)
                .containsValue(oneKey);
        assertThat(InboxStore.keyRun(100, 16)).isEqualTo(7);
        assertThat(InboxStore.keyRun(10, 64)).isEqualTo(1);
    }

    @Test
    void concurrentClaimsNeverGiveOneKeyToTwoWorkersAndEachRunStartsAtItsHead() throws Exception {
        // text keys, binary keys (one of them the bytes of a text key plus a NUL, so never equal to it), no key
        List<String> keys = List.of("a", "b", "c", "bin:0061", "bin:00", "bin:ff00", "\u00e9t\u00e9");
        List<String> inserted = new ArrayList<>();
        for (int n = 0; n < 12; n++) {
            for (String key : keys) {
                inserted.add(insert(key));
            }
            if (n < 6) {
                inserted.add(insert(null));
            }
        }
        String foreign = insert("other", "a", Duration.ZERO);
        InboxStore.Consumer a = worker();
        InboxStore.Consumer b = worker();
        Set<String> claimedEver = new HashSet<>();
        Map<String, List<String>> handedOn = new LinkedHashMap<>();

        for (int round = 0; round < 30 && claimedEver.size() < inserted.size(); round++) {
            Map<String, List<String>> liveBefore = liveIdsByKey();
            var both = Mono.zip(a.claim("worker-a", 10, LEASE), b.claim("worker-b", 10, LEASE))
                    .block(StoreTestDb.BLOCK);
            Map<String, List<String>> runsA = runs(both.getT1());
            Map<String, List<String>> runsB = runs(both.getT2());

            Set<String> shared = new HashSet<>(runsA.keySet());
            shared.retainAll(runsB.keySet());
            assertThat(shared).as("round %d: keys held by both workers", round).isEmpty();
            for (Map<String, List<String>> runs : List.of(runsA, runsB)) {
                runs.forEach((key, run) -> {
                    assertThat(run).as("run of %s is a prefix of its live rows", key)
                            .isEqualTo(liveBefore.get(key).subList(0, run.size()));
                    handedOn.computeIfAbsent(key, k -> new ArrayList<>()).addAll(run);
                });
            }
            for (ClaimedInboxMessage m : both.getT1()) {
                assertThat(claimedEver.add(m.leased().id().value())).as("claimed twice").isTrue();
            }
            for (ClaimedInboxMessage m : both.getT2()) {
                assertThat(claimedEver.add(m.leased().id().value())).as("claimed twice").isTrue();
            }
            transition(a, both.getT1(), new Transition.Deliver());
            transition(b, both.getT2(), new Transition.Deliver());
        }

        assertThat(claimedEver).as("the two workers drained the consumer's backlog").hasSameElementsAs(inserted);
        assertThat(handedOn).as("every key's rows handed on in insertion order").allSatisfy((key, ids) ->
                assertThat(ids).isSortedAccordingTo(Comparator.comparingLong(id -> Long.parseLong(id.substring(2)))));
        assertThat(handedOn.keySet()).containsExactlyInAnyOrderElementsOf(keys);
        assertThat(status(foreign)).as("another consumer's row with the same key").isEqualTo("PENDING");
    }

    @Test
    void aHeadWaitingToBeRetriedHoldsBackOnlyItsKeyAndADeadLetteredHeadFreesIt() throws Exception {
        String bad1 = insert("bad");
        String bad2 = insert("bad");
        String bad3 = insert("bad");
        String good1 = insert("good");
        InboxStore.Consumer rows = worker();

        List<ClaimedInboxMessage> first = claim(rows, "w", 1);
        assertThat(ids(first)).containsExactly(bad1);
        transition(rows, first, new Transition.ScheduleRetry(Duration.ofHours(1), "handler failed"));

        assertThat(ids(claim(rows, "w", 10))).as("the failing key waits, the other goes on").containsExactly(good1);
        assertThat(status(bad2)).isEqualTo("PENDING");
        assertThat(status(bad3)).isEqualTo("PENDING");

        db.exec("UPDATE inbox_message SET visible_after = now() WHERE message_id = ?", bad1);
        List<ClaimedInboxMessage> retried = claim(rows, "w", 1);
        assertThat(ids(retried)).as("the retry is the key's head again").containsExactly(bad1);
        transition(rows, retried, new Transition.DeadLetter("gave up"));

        assertThat(ids(claim(rows, "w", 10))).as("a dead-lettered head frees its key").containsExactly(bad2, bad3);
    }

    @Test
    void aRunIsCutBeforeItsFirstRowLockedByAnotherTransactionAndALockedHeadSkipsItsKey() throws Exception {
        String a1 = insert("bin:00ff");
        String a2 = insert("bin:00ff");
        String a3 = insert("bin:00ff"); // row-locked below: the run stops before it
        String a4 = insert("bin:00ff");
        String b1 = insert("b"); // row-locked below: the key's head, so none of b is taken
        String b2 = insert("b");
        String unkeyed = insert(null);

        List<ClaimedInboxMessage> batch;
        try (RowLockRace lockA3 = new RowLockRace(db::jdbc, "inbox_message", "message_id = ?", a3);
                RowLockRace lockB1 = new RowLockRace(db::jdbc, "inbox_message", "message_id = ?", b1)) {
            batch = claim(worker(), "worker-a", 50);
        }

        assertThat(ids(batch)).containsExactly(a1, a2, unkeyed);
        assertThat(db.exec("UPDATE inbox_message SET event_type = event_type WHERE message_id IN (?, ?, ?, ?)"
                + " AND lease_token IS NULL AND attempts = 0", a3, a4, b1, b2))
                .as("rows after a cut and a locked head's key, seen afresh").isEqualTo(4);
        assertThat(ids(claim(worker(), "worker-b", 50))).as("b is free; a waits for the lease on its head run")
                .containsExactly(b1, b2);
    }

    /**
     * Intake of a per-key consumer takes each key's lock before its rows take their seqs and holds it until they
     * commit: a batch with key {@code k} stored while another transaction holds {@code k}'s lock waits for it, and
     * its row gets the later seq, so the key's rows commit in seq order. A consumer without per-key order takes no
     * lock.
     */
    @Test
    void perKeyIntakeWaitsForAnotherStoreOfTheSameKeyAndCommitsAfterItInSeqOrder() throws Exception {
        InboxStore store = InboxStore.r2dbc(db.pool);
        try (Connection first = db.jdbc()) {
            first.setAutoCommit(false);
            storeWithJdbc(first, "first", "k");

            CompletableFuture<Set<MessageId>> second = store.store(CONSUMER, List.of(record("second", "k")),
                    Ordering.PER_KEY).toFuture();
            awaitBlockedOnAdvisoryLock(first);
            assertThat(second).as("waits for the first store of key k").isNotDone();
            assertThat(store.store(CONSUMER, List.of(record("unordered", "k")), Ordering.NONE).block(StoreTestDb.BLOCK))
                    .as("a store without per-key order takes no lock").hasSize(1);
            first.commit();

            assertThat(second.get()).hasSize(1);
        }
        assertThat(seqOf("first")).as("the waiting store's row takes its seq after the first commits")
                .isLessThan(seqOf("second"));
    }

    /** Stores one record of key {@code key} with per-key locks in {@code c}'s open transaction. */
    private static void storeWithJdbc(Connection c, String id, String key) throws SQLException {
        try (var s = c.createStatement()) {
            s.execute("PREPARE held_store(text, text[], text[], int[], bigint[], text[], text[], text[], text[],"
                    + " text[], text[], boolean) AS " + InboxSql.INSERT);
            s.execute("EXECUTE held_store('" + CONSUMER + "', ARRAY['" + id + "'], ARRAY['t'], ARRAY[0],"
                    + " ARRAY[0]::bigint[], ARRAY['" + key + "'], ARRAY[NULL]::text[], ARRAY['{}'], ARRAY['e30='],"
                    + " ARRAY[NULL]::text[], ARRAY[NULL]::text[], true)");
        }
    }

    private static InboxRecord record(String id, String key) {
        return new InboxRecord(MessageId.of(id), "t", 0, 1, key, null, "E", Map.of(),
                "{}".getBytes(StandardCharsets.UTF_8), null);
    }

    /** Waits until a store of the inbox waits for a lock {@code holder} holds. */
    private static void awaitBlockedOnAdvisoryLock(Connection holder) throws Exception {
        try (ResultSet rs = holder.createStatement().executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            RowLockRace.awaitBlockedBy(db::jdbc, rs.getInt(1), "%pg_advisory_xact_lock%", Duration.ofSeconds(10));
        }
    }

    private static long seqOf(String id) throws SQLException {
        try (Connection c = db.jdbc(); PreparedStatement s = c.prepareStatement(
                "SELECT seq FROM inbox_message WHERE consumer_name = ? AND message_id = ?")) {
            s.setString(1, CONSUMER);
            s.setString(2, id);
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).as("row " + id).isTrue();
                return rs.getLong(1);
            }
        }
    }

    private static String status(String id) throws SQLException {
        try (Connection c = db.jdbc(); PreparedStatement s = c.prepareStatement(
                "SELECT status FROM inbox_message WHERE message_id = ?")) {
            s.setString(1, id);
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).as("row " + id).isTrue();
                return rs.getString(1);
            }
        }
    }

    /** Claimed ids per key (as the test names keys), each run in seq order. */
    private static Map<String, List<String>> runs(List<ClaimedInboxMessage> batch) {
        Map<String, List<String>> byKey = new LinkedHashMap<>();
        batch.stream().sorted(Comparator.comparingLong(m -> m.leased().seq()))
                .forEach(m -> byKey.computeIfAbsent(keyName(m) == null ? "(none)" : keyName(m),
                        k -> new ArrayList<>()).add(m.leased().id().value()));
        byKey.remove("(none)");
        return byKey;
    }

    /** The consumer's live keyed rows' ids by key (as the test names keys), in seq order, read afresh. */
    private static Map<String, List<String>> liveIdsByKey() throws SQLException {
        Map<String, List<String>> byKey = new LinkedHashMap<>();
        try (Connection c = db.jdbc(); PreparedStatement s = c.prepareStatement("""
                SELECT message_id, message_key, message_key_bytes FROM inbox_message
                 WHERE consumer_name = ? AND status IN ('PENDING', 'RETRY_SCHEDULED')
                   AND (message_key IS NOT NULL OR message_key_bytes IS NOT NULL)
                 ORDER BY seq""")) {
            s.setString(1, CONSUMER);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    byte[] bytes = rs.getBytes(3);
                    String key = bytes != null ? "bin:" + HexFormat.of().formatHex(bytes) : rs.getString(2);
                    byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(rs.getString(1));
                }
            }
        }
        return byKey;
    }
}
