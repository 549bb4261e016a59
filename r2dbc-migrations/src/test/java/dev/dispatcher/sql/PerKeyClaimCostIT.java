package dev.dispatcher.sql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A measurement, not a check, and run only on request ({@code -Dprobe.run=true}; issue 49, docs/measurements.md, "The
 * two per-key claims drained statement by statement"): {@link OutboxSql#CLAIM_PER_KEY} and {@link
 * OutboxSql#CLAIM_PER_KEY_ACROSS_TOPICS} each drain an identical backlog (100,000 rows of one topic on 64 keys, as
 * the benchmark seeds them, behind {@code probe.history} delivered rows, vacuumed) on a schema of its own, as the
 * relay runs them: a cached generic plan, claims of 1,000 rows, the cursor moved as the relay moves it, up to four
 * claimed batches in flight, the oldest finished by {@link OutboxSql#DELIVER_LEASED} before the next claim. Each drain
 * runs twice, once under {@code EXPLAIN (ANALYZE, BUFFERS)} (server time and buffers of every claim) and once timed by
 * the client; the order of the two claims alternates between rounds. Prints the figures and a mid-drain plan.
 */
@EnabledIfSystemProperty(named = "probe.run", matches = "true")
class PerKeyClaimCostIT {

    static final String TOPIC = System.getProperty("probe.topic", "bench-relaybench_k3j9x2-pair1");
    static final int ROUNDS = Integer.getInteger("probe.rounds", 2);
    static final String VARIANTS = System.getProperty("probe.variants", "per-key,across");
    static final int HISTORY = Integer.getInteger("probe.history", 100_000);
    static final boolean MID_ANALYZE = Boolean.getBoolean("probe.mid-analyze");

    record Variant(String name, String sql, String types, boolean byTopic) {
    }

    static Variant variant(String name) {
        return switch (name) {
            case "per-key" -> new Variant(name, OutboxSql.CLAIM_PER_KEY, "text, bigint, int, text, bigint, text", true);
            case "across" -> new Variant(name, OutboxSql.CLAIM_PER_KEY_ACROSS_TOPICS,
                    "text, bigint, int, text, bigint", false);
            default -> throw new IllegalArgumentException("probe.variants: per-key or across, but was " + name);
        };
    }

    @Test
    void bothClaimsDrainTheSameBacklog() throws Exception {
        List<String> names = List.of(VARIANTS.split(","));
        StringBuilder out = new StringBuilder();
        for (int round = 0; round < ROUNDS; round++) {
            List<String> order = new ArrayList<>(names);
            if (round % 2 == 1) {
                Collections.reverse(order);
            }
            for (String name : order) {
                for (boolean explain : new boolean[] {true, false}) {
                    out.append(drainOnce(variant(name), explain, round)).append('\n');
                }
            }
        }
        System.out.println("PROBE RESULTS\n" + out);
    }

    /** One claimed batch in flight: its lease token and ids, for the Deliver that finishes it. */
    record Batch(String token, List<String> ids) {
    }

    static final Pattern EXEC = Pattern.compile("Execution Time: ([0-9.]+) ms");
    static final Pattern BUF = Pattern.compile("Buffers: shared hit=(\\d+)(?: read=(\\d+))?(?: dirtied=(\\d+))?");

    /** One drain of a fresh schema with {@code v}, under EXPLAIN or timed by the client; one line of figures. */
    String drainOnce(Variant v, boolean explain, int round) throws Exception {
        try (Connection c = MigratedSchemas.open("probe_" + v.name().replace('-', '_'));
                Statement s = c.createStatement()) {
            s.execute("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload, status, delivered_at)
                    SELECT 'bench-%s-old' || (g %% 9), 'key-' || (g %% 64), 'BenchEvent',
                           convert_to(repeat('x', 256), 'UTF8'), 'DELIVERED', now()
                      FROM generate_series(1, %d) g
                    """.formatted(TOPIC, HISTORY));
            s.execute("VACUUM (ANALYZE) outbox_message");
            s.execute("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload)
                    SELECT '%s', 'key-' || (g %% 64), 'BenchEvent', convert_to('"' || repeat('x', 254) || '"', 'UTF8')
                      FROM generate_series(1, 100000) g
                    """.formatted(TOPIC));
            s.execute("ANALYZE outbox_message");
            s.execute("CHECKPOINT");
            s.execute("SET plan_cache_mode = force_generic_plan");
            s.execute("PREPARE claim(" + v.types() + ") AS " + v.sql());
            s.execute("PREPARE deliver(uuid[], uuid) AS " + OutboxSql.DELIVER_LEASED);
            String curTopic = "";
            String curKey = "";
            ArrayDeque<Batch> inFlight = new ArrayDeque<>();
            int claims = 0;
            long rows = 0;
            double execMs = 0;
            double clientClaimNs = 0;
            double deliverNs = 0;
            long hit = 0;
            long read = 0;
            long dirtied = 0;
            double maxMs = 0;
            String sample = null;
            int seq = 0;
            while (true) {
                String owner = "w" + (seq++);
                String args = "'" + owner + "', 30000, 1000, '" + curKey + "', 67108864"
                        + (v.byTopic() ? ", '" + curTopic + "'" : "");
                long t0 = System.nanoTime();
                int got;
                if (explain) {
                    StringBuilder plan = new StringBuilder();
                    try (ResultSet r = s.executeQuery("EXPLAIN (ANALYZE, BUFFERS) EXECUTE claim(" + args + ")")) {
                        while (r.next()) {
                            plan.append(r.getString(1)).append('\n');
                        }
                    }
                    Matcher e = EXEC.matcher(plan);
                    e.find();
                    double ms = Double.parseDouble(e.group(1));
                    execMs += ms;
                    maxMs = Math.max(maxMs, ms);
                    Matcher b = BUF.matcher(plan);
                    if (b.find()) {
                        hit += Long.parseLong(b.group(1));
                        read += b.group(2) == null ? 0 : Long.parseLong(b.group(2));
                        dirtied += b.group(3) == null ? 0 : Long.parseLong(b.group(3));
                    }
                    if (claims == 20) {
                        sample = plan.toString();
                    }
                } else {
                    try (ResultSet r = s.executeQuery("EXECUTE claim(" + args + ")")) {
                        while (r.next()) {
                            r.getBytes("payload");
                        }
                    }
                }
                clientClaimNs += System.nanoTime() - t0;
                // what the claim took, as the relay reads its RETURNING
                List<String> ids = new ArrayList<>();
                String token = null;
                String maxAfterT = null;
                String maxAfterK = null;
                String maxT = null;
                String maxK = null;
                try (ResultSet r = s.executeQuery("SELECT id::text, lease_token::text, topic, message_key FROM"
                        + " outbox_message WHERE lease_owner = '" + owner + "' AND status IN ('PENDING',"
                        + " 'RETRY_SCHEDULED') AND lease_until > now()")) {
                    while (r.next()) {
                        ids.add(r.getString(1));
                        token = r.getString(2);
                        String t = v.byTopic() ? r.getString(3) : "";
                        String k = r.getString(4);
                        if (after(t, k, curTopic, curKey) && (maxAfterK == null || after(t, k, maxAfterT, maxAfterK))) {
                            maxAfterT = t;
                            maxAfterK = k;
                        }
                        if (maxK == null || after(t, k, maxT, maxK)) {
                            maxT = t;
                            maxK = k;
                        }
                    }
                }
                got = ids.size();
                if (got > 0) {
                    claims++;
                    if (MID_ANALYZE && claims == 50) {
                        s.execute("ANALYZE outbox_message");
                    }
                    rows += got;
                    inFlight.add(new Batch(token, ids));
                    if (maxAfterK != null) {
                        curTopic = maxAfterT;
                        curKey = maxAfterK;
                    } else if (maxK != null && after(curTopic, curKey, maxT, maxK)) {
                        curTopic = maxT;
                        curKey = maxK;
                    } else {
                        curTopic = "";
                        curKey = "";
                    }
                }
                if (inFlight.size() >= 4 || (got == 0 && !inFlight.isEmpty())) {
                    Batch done = inFlight.poll();
                    long d0 = System.nanoTime();
                    s.execute("EXECUTE deliver('{" + String.join(",", done.ids()) + "}', '" + done.token() + "')");
                    deliverNs += System.nanoTime() - d0;
                } else if (got == 0) {
                    break;
                }
            }
            String line = String.format(Locale.ROOT,
                    "round %d %-8s %s: claims %d rows %d | server exec %.1f ms (%.2f/claim, max %.1f) | client claim"
                            + " %.1f ms (%.2f/claim) | deliver %.1f ms | buffers hit %d read %d dirtied %d"
                            + " (%.0f/claim)",
                    round, v.name(), explain ? "EXPLAIN" : "timed  ", claims, rows, execMs, execMs / claims, maxMs,
                    clientClaimNs / 1e6, clientClaimNs / 1e6 / claims, deliverNs / 1e6, hit, read, dirtied,
                    (double) (hit + read) / claims);
            if (sample != null && round == 0) {
                line += "\n--- claim 20 of " + v.name() + ":\n" + sample;
            }
            return line;
        }
    }

    /** Whether (t, k) is after (ct, ck). */
    static boolean after(String t, String k, String ct, String ck) {
        int c = t.compareTo(ct);
        return c != 0 ? c > 0 : k.compareTo(ck) > 0;
    }
}
