package dev.dispatcher.app.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.store.StoreTestDb.Row;
import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionOutcome;
import dev.dispatcher.domain.TransitionResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** Claim semantics on real PostgreSQL: per-key exclusivity and order, visibility, expiry, attempts, skew. */
class ClaimIT {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private static StoreTestDb db;

    @BeforeAll
    static void schema() {
        db = new StoreTestDb("claims");
    }

    @AfterAll
    static void closeDb() {
        db.close();
    }

    @BeforeEach
    void emptyOutbox() throws Exception {
        db.exec("DELETE FROM outbox_message");
    }

    /** Claimed seqs per key, each list in seq order. */
    private static Map<String, List<Long>> seqsByKey(List<ClaimedOutboxMessage> batch) {
        Map<String, List<Long>> byKey = new LinkedHashMap<>();
        batch.stream().filter(m -> m.key() != null)
                .sorted(Comparator.comparingLong(m -> m.leased().seq()))
                .forEach(m -> byKey.computeIfAbsent(m.key(), k -> new ArrayList<>()).add(m.leased().seq()));
        return byKey;
    }

    /** Asserts each key's claimed rows are the first rows of its live backlog, in order and without gaps. */
    private static void assertRunsStartAtHeads(Map<String, List<Long>> claimed, Map<String, List<Long>> liveBefore) {
        claimed.forEach((key, seqs) -> assertThat(seqs)
                .as("run of key %s is a prefix of its live rows %s", key, liveBefore.get(key))
                .isEqualTo(liveBefore.get(key).subList(0, seqs.size())));
    }

    private static void deliverAll(OutboxStore store, List<ClaimedOutboxMessage> batch) {
        if (batch.isEmpty()) {
            return;
        }
        List<TransitionResult> results = store.transition(batch.stream()
                .map(m -> new TransitionRequest(m.leased(), new Transition.Deliver())).toList())
                .block(StoreTestDb.BLOCK);
        assertThat(results).extracting(TransitionResult::outcome).containsOnly(TransitionOutcome.APPLIED);
    }

    @Test
    void concurrentPerKeyClaimsNeverGiveOneKeyToTwoWorkers() throws Exception {
        int keys = 12;
        int perKey = 15;
        List<String> keyNames = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            keyNames.add("key-" + k);
        }
        List<String> rows = new ArrayList<>();
        for (int n = 0; n < perKey; n++) {
            rows.addAll(keyNames);
            if (n < 10) {
                rows.add(null);
            }
        }
        db.insertAll(rows);
        OutboxStore workerA = db.store();
        OutboxStore workerB = db.store();
        Set<UUID> claimedEver = new HashSet<>();
        int claimedRows = 0;

        for (int round = 0; round < 20; round++) {
            Map<String, List<Long>> liveBefore = db.liveSeqsByKey();
            var both = Mono.zip(workerA.claimBatch("worker-a", 16, LEASE, Ordering.PER_KEY),
                    workerB.claimBatch("worker-b", 16, LEASE, Ordering.PER_KEY)).block(StoreTestDb.BLOCK);
            List<ClaimedOutboxMessage> a = both.getT1();
            List<ClaimedOutboxMessage> b = both.getT2();
            Map<String, List<Long>> runsA = seqsByKey(a);
            Map<String, List<Long>> runsB = seqsByKey(b);

            Set<String> shared = new HashSet<>(runsA.keySet());
            shared.retainAll(runsB.keySet());
            assertThat(shared).as("round %d: keys held by both workers", round).isEmpty();
            assertRunsStartAtHeads(runsA, liveBefore);
            assertRunsStartAtHeads(runsB, liveBefore);
            for (ClaimedOutboxMessage m : a) {
                assertThat(claimedEver.add(m.leased().id().asUuid())).as("claimed twice: %s", m.leased().id()).isTrue();
            }
            for (ClaimedOutboxMessage m : b) {
                assertThat(claimedEver.add(m.leased().id().asUuid())).as("claimed twice: %s", m.leased().id()).isTrue();
            }
            claimedRows += a.size() + b.size();
            deliverAll(workerA, a);
            deliverAll(workerB, b);
            if (claimedRows == keys * perKey + 10) {
                break;
            }
        }

        assertThat(claimedRows).as("the two workers drained the backlog").isEqualTo(keys * perKey + 10);
        assertThat(countWhere("status = 'DELIVERED' AND version = 1 AND attempts = 1")).isEqualTo(keys * perKey + 10);
    }

    /**
     * The byte budget cuts a claim in seq order: per key the rows kept are still a run from the head, the rows cut
     * off stay claimable (not leased, no attempt spent), and one row larger than the budget is claimed alone.
     */
    @Test
    void aClaimStopsBeforeTheRowThatWouldPassItsByteBudgetAndTakesALargerRowAlone() throws Exception {
        for (Ordering ordering : Ordering.values()) {
            db.exec("DELETE FROM outbox_message");
            // seq order: a(100) b(100) a(300) null(100) b(100) a(100)
            List<String> keys = java.util.Arrays.asList("a", "b", "a", null, "b", "a");
            db.insertAll(keys);
            db.exec("UPDATE outbox_message SET payload = convert_to(repeat('x', CASE WHEN seq = (SELECT min(seq) + 2"
                    + " FROM outbox_message) THEN 300 ELSE 100 END), 'UTF8')");
            Map<String, List<Long>> liveBefore = db.liveSeqsByKey();
            OutboxStore store = db.store();

            List<ClaimedOutboxMessage> first = store.claimBatch("budget", 100, 550, LEASE, ordering)
                    .block(StoreTestDb.BLOCK);
            assertThat(first).as("%s: 100 + 100 + 300 fit 550 bytes, the next 100 would pass them", ordering)
                    .hasSize(3);
            assertThat(first.stream().mapToLong(ClaimedOutboxMessage::payloadBytes).sum()).isEqualTo(500);
            assertRunsStartAtHeads(seqsByKey(first), liveBefore);
            assertThat(countWhere("lease_owner IS NULL AND attempts = 0")).as("%s: the rest untouched", ordering)
                    .isEqualTo(3);
            deliverAll(store, first);

            db.exec("UPDATE outbox_message SET payload = convert_to(repeat('x', 1000), 'UTF8')"
                    + " WHERE status = 'PENDING'");
            List<ClaimedOutboxMessage> large = store.claimBatch("budget", 100, 550, LEASE, ordering)
                    .block(StoreTestDb.BLOCK);
            assertThat(large).as("%s: a row larger than the budget goes alone", ordering).hasSize(1);
            assertThat(large.get(0).payloadBytes()).isEqualTo(1000);
        }
    }

    @Test
    void aLeasedKeyIsNotClaimedAgainUntilItsLeaseEnds() throws Exception {
        UUID head = db.insert("k");
        UUID tail = db.insert("k");
        OutboxStore store = db.store();
        List<ClaimedOutboxMessage> first = db.claim(store, "worker-a", 1, LEASE, Ordering.PER_KEY);
        assertThat(first).extracting(m -> m.leased().id().asUuid()).containsExactly(head);

        assertThat(db.claim(store, "worker-b", 10, LEASE, Ordering.PER_KEY))
                .as("the tail of a key whose head is leased").isEmpty();
        assertThat(db.claim(db.store(), "worker-c", 10, LEASE, Ordering.PER_KEY)).isEmpty();

        deliverAll(store, first);
        assertThat(db.claim(store, "worker-b", 10, LEASE, Ordering.PER_KEY))
                .extracting(m -> m.leased().id().asUuid()).containsExactly(tail);
    }

    @Test
    void perKeyRunStopsAtTheFirstRowNotYetVisibleAndAnInvisibleHeadBlocksItsKey() throws Exception {
        UUID a1 = db.insert("a");
        UUID a2 = db.insert("a");
        db.insert("a", Duration.ofHours(1));
        db.insert("a");
        db.insert("b", Duration.ofHours(1));
        db.insert("b");
        UUID unkeyed = db.insert(null);
        db.insert(null, Duration.ofHours(1));
        OutboxStore store = db.store();

        List<ClaimedOutboxMessage> batch = db.claim(store, "worker-a", 50, LEASE, Ordering.PER_KEY);

        assertThat(batch).extracting(m -> m.leased().id().asUuid()).containsExactlyInAnyOrder(a1, a2, unkeyed);
        assertThat(db.claim(db.store(), "worker-b", 50, LEASE, Ordering.NONE))
                .as("with ordering=none only visible rows are claimed")
                .extracting(ClaimedOutboxMessage::key).containsExactlyInAnyOrder("a", "b");
        assertThat(countWhere("lease_until IS NULL")).as("future rows untouched").isEqualTo(3);
        assertThat(countWhere("visible_after > now() AND attempts > 0")).isZero();
    }

    @Test
    void aRunIsCutBeforeItsFirstRowLockedByAnotherTransactionAndALockedHeadSkipsItsKey() throws Exception {
        UUID a1 = db.insert("a");
        UUID a2 = db.insert("a");
        UUID a3 = db.insert("a"); // row-locked below: the run of a stops before it
        UUID a4 = db.insert("a");
        UUID b1 = db.insert("b"); // row-locked below: the key's head, so none of b is taken
        UUID b2 = db.insert("b");
        UUID c1 = db.insert("c");
        UUID unkeyed = db.insert(null);
        OutboxStore store = db.store();

        List<ClaimedOutboxMessage> batch;
        try (RowLockRace lockA3 = new RowLockRace(db::jdbc, "outbox_message", "id = ?", a3);
                RowLockRace lockB1 = new RowLockRace(db::jdbc, "outbox_message", "id = ?", b1)) {
            batch = db.claim(store, "worker-a", 50, LEASE, Ordering.PER_KEY);
        }

        assertThat(batch).extracting(m -> m.leased().id().asUuid())
                .containsExactlyInAnyOrder(a1, a2, c1, unkeyed);
        try (Connection c = db.jdbc(); PreparedStatement s = c.prepareStatement(
                "SELECT count(*) FROM outbox_message WHERE id = ANY(?) AND lease_token IS NULL AND attempts = 0")) {
            s.setArray(1, c.createArrayOf("uuid", new UUID[] {a3, a4, b1, b2}));
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                assertThat(rs.getLong(1)).as("rows after a cut and a locked head's key, seen afresh").isEqualTo(4);
            }
        }
        // the locks are gone: b is free; a waits for the lease on its head run
        assertThat(db.claim(db.store(), "worker-b", 50, LEASE, Ordering.PER_KEY))
                .extracting(m -> m.leased().id().asUuid()).containsExactlyInAnyOrder(b1, b2);
    }

    @Test
    void aClaimWhoseFirstKeyIsHeldByACompetingClaimTakesTheNextKeysRunsInstead() throws Exception {
        List<UUID> a = new ArrayList<>();
        for (int n = 0; n < 4; n++) {
            a.add(db.insert("a")); // enough rows of a alone to fill the batch below
        }
        UUID b1 = db.insert("b");
        UUID b2 = db.insert("b");
        UUID c1 = db.insert("c");
        OutboxStore store = db.store();

        List<ClaimedOutboxMessage> batch;
        // a competing relay's claim of a's run, in flight: it holds every row of the run until it commits
        try (RowLockRace competitor = new RowLockRace(db::jdbc, "outbox_message", "message_key = ?", "a")) {
            batch = db.claim(store, "worker-b", 4, LEASE, Ordering.PER_KEY);
        }

        assertThat(batch).as("the other open keys' runs, not an empty batch")
                .extracting(m -> m.leased().id().asUuid()).containsExactlyInAnyOrder(b1, b2, c1);
        try (Connection c = db.jdbc(); PreparedStatement s = c.prepareStatement(
                "SELECT count(*) FROM outbox_message WHERE id = ANY(?) AND lease_token IS NULL AND attempts = 0")) {
            s.setArray(1, c.createArrayOf("uuid", a.toArray(UUID[]::new)));
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                assertThat(rs.getLong(1)).as("the competitor's key untouched, seen afresh").isEqualTo(4);
            }
        }
    }

    @Test
    void anExpiredLeaseIsReclaimedAndReportedAsExpired() throws Exception {
        UUID id = db.insert("k");
        OutboxStore store = db.store();
        ClaimedOutboxMessage first = db.claim(store, "worker-a", 10, Duration.ofSeconds(30), Ordering.PER_KEY)
                .getFirst();
        assertThat(first.leaseExpired()).isFalse();
        assertThat(db.claim(store, "worker-b", 10, LEASE, Ordering.PER_KEY)).as("live lease").isEmpty();
        assertThat(db.claim(store, "worker-b", 10, LEASE, Ordering.NONE)).as("live lease").isEmpty();

        db.expireLease(id);
        List<ClaimedOutboxMessage> again = db.claim(store, "worker-b", 10, LEASE, Ordering.PER_KEY);

        assertThat(again).hasSize(1);
        ClaimedOutboxMessage second = again.getFirst();
        assertThat(second.leased().id().asUuid()).isEqualTo(id);
        assertThat(second.leaseExpired()).isTrue();
        assertThat(second.leased().lease().token()).isNotEqualTo(first.leased().lease().token());
        assertThat(second.leased().attempts()).isEqualTo(2);
        Row row = db.existing(id);
        assertThat(row.leaseOwner()).isEqualTo("worker-b");
        assertThat(row.leaseToken()).isEqualTo(second.leased().lease().token());
        assertThat(row.attempts()).isEqualTo(2);
        assertThat(row.version()).as("claims do not change version").isZero();
    }

    @Test
    void unorderedClaimTakesRowsInSeqOrderIgnoringKeysAndCountsAnAttempt() throws Exception {
        List<UUID> ids = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            keys.add(i % 3 == 0 ? null : "key-" + (i % 2));
        }
        ids.addAll(db.insertAll(keys));
        OutboxStore store = db.store();

        List<ClaimedOutboxMessage> first = db.claim(store, "worker-a", 4, LEASE, Ordering.NONE);
        List<ClaimedOutboxMessage> second = db.claim(store, "worker-b", 4, LEASE, Ordering.NONE);

        assertThat(sortedIds(first)).isEqualTo(ids.subList(0, 4));
        assertThat(sortedIds(second)).isEqualTo(ids.subList(4, 8));
        assertThat(first).allSatisfy(m -> assertThat(m.leased().attempts()).isEqualTo(1));
        assertThat(countWhere("attempts = 1 AND lease_until > now()")).isEqualTo(8);
        assertThat(countWhere("attempts = 0 AND lease_until IS NULL")).isEqualTo(2);
    }

    private static List<UUID> sortedIds(List<ClaimedOutboxMessage> batch) {
        return batch.stream().sorted(Comparator.comparingLong(m -> m.leased().seq()))
                .map(m -> m.leased().id().asUuid()).toList();
    }

    @Test
    void perKeyClaimOnASkewedBacklogReturnsAFullBatchOfHeadRuns() throws Exception {
        int rows = 100_000;
        long seeding = System.nanoTime();
        try (Connection c = db.jdbc(); Statement s = c.createStatement()) {
            s.executeUpdate("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload)
                    SELECT 'store-topic', CASE WHEN g % 2 = 0 THEN 'hot' ELSE 'k-' || (g % 5000) END, 'TestEvent',
                           '\\x7b7d'::bytea
                      FROM generate_series(1, ROWS) g ORDER BY g""".replace("ROWS", Integer.toString(rows)));
            s.execute("ANALYZE outbox_message");
        }
        System.out.println("DIAG seeded " + rows + " rows in " + (System.nanoTime() - seeding) / 1_000_000 + " ms");
        OutboxStore store = db.store();
        int limit = 200;
        try (Connection verify = db.jdbc()) {
            for (int claim = 0; claim < 3; claim++) {
                long start = System.nanoTime();
                List<ClaimedOutboxMessage> batch = db.claim(store, "worker-" + claim, limit, LEASE, Ordering.PER_KEY);
                long elapsedMs = (System.nanoTime() - start) / 1_000_000;
                Map<String, List<Long>> runs = seqsByKey(batch);
                System.out.println("DIAG skewed claim " + claim + ": " + batch.size() + " rows, " + runs.size()
                        + " keys, hot=" + runs.getOrDefault("hot", List.of()).size() + " in " + elapsedMs + " ms");

                assertThat(batch).hasSize(limit);
                assertThat(batch).extracting(ClaimedOutboxMessage::key).doesNotContainNull();
                Set<UUID> distinct = batch.stream().map(m -> m.leased().id().asUuid()).collect(Collectors.toSet());
                assertThat(distinct).hasSize(limit);
                for (Map.Entry<String, List<Long>> run : runs.entrySet()) {
                    List<Long> expected = firstLiveSeqs(verify, run.getKey(), run.getValue().size());
                    assertThat(run.getValue()).as("run of %s starts at its head", run.getKey()).isEqualTo(expected);
                    assertThat(leasedByOthers(verify, run.getKey(), "worker-" + claim))
                            .as("key %s also leased by an earlier claim", run.getKey()).isZero();
                }
            }
        }
    }

    private static long leasedByOthers(Connection c, String key, String owner) throws Exception {
        try (PreparedStatement s = c.prepareStatement("""
                SELECT count(*) FROM outbox_message
                 WHERE message_key = ? AND lease_owner <> ? AND lease_until > now()""")) {
            s.setString(1, key);
            s.setString(2, owner);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** The first {@code n} live seqs of {@code key} that are not leased by anyone else (its head run). */
    private static List<Long> firstLiveSeqs(Connection c, String key, int n) throws Exception {
        List<Long> seqs = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("""
                SELECT seq FROM outbox_message
                 WHERE message_key = ? AND status IN ('PENDING', 'RETRY_SCHEDULED') ORDER BY seq LIMIT ?""")) {
            s.setString(1, key);
            s.setInt(2, n);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    seqs.add(rs.getLong(1));
                }
            }
        }
        return seqs;
    }

    private static long countWhere(String where) throws Exception {
        try (Connection c = db.jdbc(); ResultSet rs = c.createStatement()
                .executeQuery("SELECT count(*) FROM outbox_message WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
