package dev.dispatcher.load.inprocess;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.PollPacing;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Where an inbox drain's effects are counted, never from the service's own figures: at the {@link WebhookReceiver}
 * (ids answered {@code 2xx}) or as rows of the SQL handler's {@code bench_effect} table. The odd record of {@code
 * --poison-key} ({@code oddId}) is never one of the N.
 */
sealed interface InboxEffects {

    /** Distinct measured effects so far, for a drain timed on {@code target} records. */
    LongSupplier counter(Set<String> failingKeyIds, int target);

    /** How often the harness polls the counter near the drain's end. */
    Duration pollEvery();

    /** How long the harness may wait between polls far from the drain's end ({@link PollPacing}). */
    default Duration pollAtMost() {
        return pollEvery();
    }

    /** Of {@code measured}, the ids without an effect ({@code failingKey}'s rows left out; null: none). */
    long lost(Set<String> measured, String failingKey);

    /** Ids with more than one effect. */
    long duplicates();

    /** Whether {@code id} had an effect. */
    boolean handled(String id);

    /** At the receiver; effects it counted before now (earlier drains) are not this drain's. */
    static InboxEffects atReceiver(WebhookReceiver receiver, String oddId, boolean poisonKey) {
        return new AtReceiver(receiver, oddId, poisonKey, receiver.effects());
    }

    /** In {@code schema}'s {@code bench_effect}, polled through one connection held until the run ends. */
    static InboxEffects inTable(BenchEnvironment env, String schema, String oddId) throws SQLException {
        return new InTable(env, schema, oddId, env.jdbcUntilClosed(schema));
    }

    /** Effects at the receiver, polled every 2 ms (a map lookup). */
    record AtReceiver(WebhookReceiver receiver, String oddId, boolean poisonKey, long before) implements InboxEffects {

        @Override
        public LongSupplier counter(Set<String> failingKeyIds, int target) {
            return () -> receiver.effects() - before - (poisonKey && receiver.handled(oddId) ? 1 : 0)
                    - failingKeyIds.stream().filter(receiver::handled).count();
        }

        @Override
        public Duration pollEvery() {
            return Duration.ofMillis(2);
        }

        @Override
        public long lost(Set<String> measured, String failingKey) {
            return receiver.lost(measured);
        }

        @Override
        public long duplicates() {
            return receiver.duplicateEffects();
        }

        @Override
        public boolean handled(String id) {
            return receiver.handled(id);
        }
    }

    /**
     * Effects as rows: {@code count(*)} is a plain scan, where {@code DISTINCT} sorts every id, so the ids are
     * checked to be distinct only once there are enough rows; polled every 200 ms near the drain's end and up to
     * every 2 s before it (every 20 ms it cost PostgreSQL more than the handler's own work; every 200 ms throughout,
     * about 1% of the machine's time in a drain of 80,000).
     */
    record InTable(BenchEnvironment env, String schema, String oddId, Connection poll) implements InboxEffects {

        @Override
        public LongSupplier counter(Set<String> failingKeyIds, int target) {
            String ordinary = ordinary(failingKeyIds.isEmpty() ? null : InboxBenchmark.FAILING_KEY);
            return () -> {
                long rows = count(poll, "SELECT count(*)" + ordinary);
                return rows < target ? rows : count(poll, "SELECT count(DISTINCT message_id)" + ordinary);
            };
        }

        @Override
        public Duration pollEvery() {
            return Duration.ofMillis(200);
        }

        @Override
        public Duration pollAtMost() {
            return Duration.ofSeconds(2);
        }

        @Override
        public long lost(Set<String> measured, String failingKey) {
            return measured.size() - count(poll, "SELECT count(DISTINCT message_id)" + ordinary(failingKey));
        }

        @Override
        public long duplicates() {
            return count(poll, "SELECT count(*) FROM (SELECT message_id FROM bench_effect GROUP BY message_id"
                    + " HAVING count(*) > 1) d");
        }

        @Override
        public boolean handled(String id) {
            return count(poll, "SELECT count(*) FROM bench_effect WHERE message_id = '" + id + "'") > 0;
        }

        /** The FROM and WHERE of the ordinary records' effects, {@code failingKey}'s left out (null: none). */
        private String ordinary(String failingKey) {
            return " FROM bench_effect WHERE message_id <> '" + oddId + "'"
                    + (failingKey == null ? "" : " AND message_key IS DISTINCT FROM '" + failingKey + "'");
        }

        private static long count(Connection c, String sql) {
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
                r.next();
                return r.getLong(1);
            } catch (SQLException e) {
                return -1;
            }
        }
    }
}
