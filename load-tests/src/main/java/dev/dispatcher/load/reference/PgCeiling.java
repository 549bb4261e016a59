package dev.dispatcher.load.reference;

import dev.dispatcher.load.bench.BenchEnvironment;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The fixed PostgreSQL-only reference ceiling of {@code relay-drain} ({@code pg_ceiling_msgs_per_s}): a lean table,
 * a batch of 500 rows claimed ({@code FOR UPDATE SKIP LOCKED}, one lease token) and completed by primary key in one
 * function call, 2 concurrent loops until the seeded rows are gone; rows/s = completed rows / wall time. No client
 * work, no Kafka, no classification: what the database alone does, deliberately not the relay's own statements (a
 * ratio to one's own statements cannot show what they cost).
 *
 * <p>The statements are those of {@code load-tests/reference/pg-ceiling.sql} (the reference users run with psql),
 * verbatim apart from the seed count, which is bound as a parameter; {@code PgCeilingReferenceTest} keeps them
 * identical to that file.
 */
public final class PgCeiling {

    /** Batch size and loop count fixed by the reference. */
    static final int BATCH = 500;
    static final int LOOPS = 2;

    // reference/pg-ceiling.sql, table and index
    static final String CREATE_TABLE = """
            CREATE TABLE ceiling_outbox (
              id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
              seq bigint GENERATED ALWAYS AS IDENTITY,
              topic text NOT NULL, message_key text, event_type text NOT NULL, payload bytea NOT NULL,
              status text NOT NULL DEFAULT 'PENDING', attempts int NOT NULL DEFAULT 0,
              visible_after timestamptz NOT NULL DEFAULT now(),
              lease_owner text, lease_token uuid, lease_until timestamptz,
              version bigint NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now(), delivered_at timestamptz
            ) WITH (fillfactor = 80)""";
    static final String CREATE_INDEX =
            "CREATE INDEX ceiling_outbox_claim ON ceiling_outbox (seq) WHERE status IN ('PENDING', 'RETRY_SCHEDULED')";

    // reference/pg-ceiling.sql, seeding (psql's :n bound as a parameter)
    static final String SEED = """
            INSERT INTO ceiling_outbox (topic, message_key, event_type, payload)
            SELECT 'bench', 'k' || (g % 64), 'bench.event', convert_to(repeat('x', 200), 'UTF8') FROM generate_series(1, ?) g""";

    // reference/pg-ceiling.sql, the claim-and-complete function
    static final String CREATE_FUNCTION = """
            CREATE OR REPLACE FUNCTION ceiling_claim_complete(p_batch int, p_owner text) RETURNS int LANGUAGE plpgsql AS $$
            DECLARE ids uuid[]; tok uuid := gen_random_uuid(); n int;
            BEGIN
              WITH c AS (SELECT id FROM ceiling_outbox
                          WHERE status IN ('PENDING', 'RETRY_SCHEDULED') AND visible_after <= now()
                            AND (lease_until IS NULL OR lease_until < now())
                          ORDER BY seq LIMIT p_batch FOR UPDATE SKIP LOCKED),
                   u AS (UPDATE ceiling_outbox o SET lease_owner = p_owner, lease_token = tok,
                                lease_until = now() + interval '30 seconds', attempts = attempts + 1
                           FROM c WHERE o.id = c.id RETURNING o.id)
              SELECT array_agg(id) INTO ids FROM u;
              UPDATE ceiling_outbox SET status = 'DELIVERED', delivered_at = now(), version = version + 1, lease_until = NULL
               WHERE id = ANY(ids) AND lease_token = tok AND status IN ('PENDING', 'RETRY_SCHEDULED');
              GET DIAGNOSTICS n = ROW_COUNT;
              RETURN n;
            END $$""";

    private PgCeiling() {
    }

    /**
     * Two reference runs on the same database, one before and one after the measured phase, and the higher of the
     * two, to which the ratio is the lower one: on a shared machine a single run can land in a slow minute and make
     * a relay look close to the database (docs/measurements.md).
     */
    public record Bracket(double before, double after) {

        public double higher() {
            return Math.max(before, after);
        }

        /** Both runs, for the RESULT's {@code pg_ceiling_runs}. */
        public String runs() {
            return Math.round(before) + " " + Math.round(after);
        }
    }

    /**
     * Creates the reference table in {@code schema}, seeds {@code n} rows, then runs {@link #LOOPS} loops of
     * {@code ceiling_claim_complete(500, 'loopN')} until each gets 0; returns completed rows per second of wall time.
     */
    public static double measure(BenchEnvironment env, String schema, int n) throws Exception {
        try (Connection c = env.jdbc(schema); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS ceiling_outbox");
            s.execute(CREATE_TABLE);
            s.execute(CREATE_INDEX);
            try (PreparedStatement seed = c.prepareStatement(SEED)) {
                seed.setInt(1, n);
                seed.executeUpdate();
            }
            s.execute("VACUUM ANALYZE ceiling_outbox");
            s.execute(CREATE_FUNCTION);
            s.execute("CHECKPOINT"); // as before every timed phase (OutboxRows.insert)
        }
        ExecutorService loops = Executors.newFixedThreadPool(LOOPS);
        try {
            List<Future<Long>> done = new ArrayList<>();
            long start = System.nanoTime();
            for (int loop = 1; loop <= LOOPS; loop++) {
                String owner = "loop" + loop;
                done.add(loops.submit(() -> loop(env, schema, owner)));
            }
            long completed = 0;
            for (Future<Long> f : done) {
                completed += f.get();
            }
            double rate = completed / ((System.nanoTime() - start) / 1e9);
            System.out.printf(Locale.ROOT, "ceiling: reference pg-ceiling.sql, %d loops x batches of %d, %d rows at"
                    + " %.0f rows/s%n", LOOPS, BATCH, completed, rate);
            return rate;
        } finally {
            loops.shutdownNow();
        }
    }

    private static long loop(BenchEnvironment env, String schema, String owner) throws SQLException {
        long completed = 0;
        try (Connection c = env.jdbc(schema);
             PreparedStatement call = c.prepareStatement("SELECT ceiling_claim_complete(?, ?)")) {
            call.setInt(1, BATCH);
            call.setString(2, owner);
            while (true) {
                try (ResultSet r = call.executeQuery()) {
                    r.next();
                    int n = r.getInt(1);
                    if (n == 0) {
                        return completed;
                    }
                    completed += n;
                }
            }
        }
    }
}
