package dev.dispatcher.load.reference;

import dev.dispatcher.load.bench.BenchEnvironment;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
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
import java.util.stream.Collectors;

/**
 * The fixed PostgreSQL-only reference ceiling of {@code relay-drain} ({@code pg_ceiling_msgs_per_s}): a lean table,
 * a batch of 500 rows claimed ({@code FOR UPDATE SKIP LOCKED}, one lease token) and completed by primary key in one
 * function call, 2 concurrent loops until the seeded rows are gone; rows/s = completed rows / wall time. No client
 * work, no Kafka, no classification: what the database alone does, deliberately not the relay's own statements (a
 * ratio to one's own statements cannot show what they cost).
 *
 * <p>The statements are read from {@code load-tests/reference/pg-ceiling.sql}, the file users run with psql, and run
 * in its order; psql's {@code :n} (the seed count) is bound as a parameter.
 */
public final class PgCeiling {

    /** Batch size and loop count fixed by the reference. */
    static final int BATCH = 500;
    static final int LOOPS = 2;

    /** The reference as users run it with psql, on the class path from {@code load-tests/reference}. */
    static final String RESOURCE = "/reference/pg-ceiling.sql";

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
            for (String statement : statements()) {
                if (statement.contains(":n")) {
                    try (PreparedStatement seed = c.prepareStatement(statement.replace(":n", "?"))) {
                        seed.setInt(1, n);
                        seed.executeUpdate();
                    }
                } else {
                    s.execute(statement);
                }
            }
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

    /**
     * The reference file's statements in order: comment lines dropped, split at each {@code ;} outside a
     * dollar-quoted body.
     */
    static List<String> statements() throws IOException {
        String sql;
        try (InputStream in = PgCeiling.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IOException(RESOURCE + " is not on the class path");
            }
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String body = sql.lines().filter(line -> !line.startsWith("--")).collect(Collectors.joining("\n"));
        List<String> statements = new ArrayList<>();
        boolean quoted = false;
        int from = 0;
        for (int i = 0; i < body.length(); i++) {
            if (body.startsWith("$$", i)) {
                quoted = !quoted;
                i++;
            } else if (body.charAt(i) == ';' && !quoted) {
                statements.add(body.substring(from, i).strip());
                from = i + 1;
            }
        }
        statements.removeIf(String::isEmpty);
        return statements;
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
