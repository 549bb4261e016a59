package dev.dispatcher.load.gatling;

import dev.dispatcher.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The insert ceiling of {@code load-tests/reference/README.md}: one-row INSERT transactions into the real
 * {@code outbox_message} table (its trigger and indexes included), from as many concurrent connections as the load
 * uses, with a prepared statement and auto-commit (what {@code pgbench -n -M prepared -c N -f insert.sql} does with
 * the README's statement). A fixed reference measured on the same database in the same run, never the code under
 * test; its schema is its own, so the service's relay never sees these rows.
 */
final class InsertCeiling {

    static final String INSERT = "INSERT INTO outbox_message (topic, message_key, event_type, payload) VALUES"
            + " ('bench', 'k' || (random()*64)::int, 'bench.event', convert_to(repeat('x', 200), 'UTF8'))";

    private InsertCeiling() {
    }

    /** Commits per second over {@code duration}, with {@code connections} writers. */
    static double measure(PostgresServer postgres, int connections, Duration duration) throws Exception {
        String schema = postgres.createSchema("ceiling_ingest");
        AtomicLong commits = new AtomicLong();
        long deadline = System.nanoTime() + duration.toNanos();
        List<Thread> writers = new ArrayList<>();
        List<Exception> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        long started = System.nanoTime();
        for (int i = 0; i < connections; i++) {
            writers.add(Thread.ofPlatform().name("ceiling-" + i).start(() -> {
                try (Connection c = postgres.openConnection(schema)) {
                    c.setAutoCommit(true);
                    try (PreparedStatement insert = c.prepareStatement(INSERT)) {
                        while (System.nanoTime() < deadline) {
                            insert.executeUpdate();
                            commits.incrementAndGet();
                        }
                    }
                } catch (SQLException e) {
                    failures.add(e);
                }
            }));
        }
        for (Thread writer : writers) {
            writer.join();
        }
        double rate = commits.get() / ((System.nanoTime() - started) / 1e9);
        postgres.dropSchema(schema);
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
        return rate;
    }
}
