package dev.dispatcher.load.reference;

import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.postgresql.PGConnection;

/**
 * The latency reference of {@code reference-latency}: the batching outbox loop a team writes by hand, in a JVM of its
 * own, on the Dispatcher table and its wake-up notifications. Not Dispatcher's code, so the distance between the two
 * on the same machine and load is what Dispatcher's own work costs.
 *
 * <p>One thread, one connection ({@code LISTEN dispatcher_outbox}). Each batch is one transaction: claim up to
 * {@link #BATCH} live rows in {@code seq} order ({@code FOR UPDATE SKIP LOCKED}; the claim stamps {@code
 * last_attempt_at}, read by {@code LatencyTail}), send them all, flush the producer ({@code acks=all}, idempotent)
 * and wait for every acknowledgement, mark them delivered, commit. A batch that found rows is followed by another
 * claim at once; an empty one by a wait for a notification, at most {@link #POLL_MILLIS}. A failed send rolls the
 * batch back, and it is claimed again after the wait an empty batch gets. One loop in {@code seq} order keeps each
 * key's order; with more loops (each its own thread, connection and producer, as the two loops of {@code
 * pg-ceiling.sql}) a key's rows can overtake each other, so that is an unordered reference.
 *
 * <p>Arguments: JDBC URL, user, password, schema, Kafka bootstrap servers, loops. Runs until killed.
 */
public final class ReferenceRelay {

    static final int BATCH = 500;
    static final int POLL_MILLIS = 1000;

    private static final String CLAIM = """
            UPDATE outbox_message o
               SET lease_owner = 'reference', lease_until = now() + interval '30 seconds',
                   attempts = o.attempts + 1, last_attempt_at = clock_timestamp()
              FROM (SELECT id FROM outbox_message
                     WHERE status IN ('PENDING', 'RETRY_SCHEDULED') AND seq > 0 AND visible_after <= now()
                     ORDER BY seq LIMIT %d FOR UPDATE SKIP LOCKED) c
             WHERE o.id = c.id
            RETURNING o.id, o.seq, o.topic, o.message_key, o.event_type, o.payload
            """.formatted(BATCH);

    private static final String DELIVER = """
            UPDATE outbox_message
               SET status = 'DELIVERED', delivered_at = now(), version = version + 1, lease_owner = NULL,
                   lease_until = NULL
             WHERE id = ANY (?)
            """;

    private record Row(UUID id, long seq, String topic, String key, String eventType, byte[] payload) {
    }

    private ReferenceRelay() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            throw new IllegalArgumentException(
                    "usage: ReferenceRelay <jdbc-url> <user> <password> <schema> <bootstrap> <loops>");
        }
        int loops = Integer.parseInt(args[5]);
        List<Thread> threads = new ArrayList<>();
        CountDownLatch listening = new CountDownLatch(loops);
        for (int i = 0; i < loops; i++) {
            Thread t = new Thread(() -> {
                try {
                    loop(args, listening);
                } catch (Exception e) {
                    e.printStackTrace();
                    System.exit(1);
                }
            }, "reference-loop-" + i);
            t.start();
            threads.add(t);
        }
        listening.await();
        System.out.println("reference relay: " + loops + " loop(s) listening on " + args[3]);
        for (Thread t : threads) {
            t.join();
        }
    }

    private static void loop(String[] args, CountDownLatch listening) throws Exception {
        Properties db = new Properties();
        db.setProperty("user", args[1]);
        db.setProperty("password", args[2]);
        db.setProperty("currentSchema", args[3]);
        try (KafkaProducer<String, byte[]> producer = NaiveRelay.producer(args[4]); // no linger: each batch flushes
             Connection c = DriverManager.getConnection(args[0], db)) {
            try (Statement s = c.createStatement()) {
                s.execute("LISTEN dispatcher_outbox");
            }
            c.setAutoCommit(false);
            PGConnection notifications = c.unwrap(PGConnection.class);
            listening.countDown();
            while (true) {
                int sent = batch(c, producer);
                if (sent == 0) {
                    notifications.getNotifications(POLL_MILLIS); // a notification that came meanwhile returns at once
                }
            }
        }
    }

    /** One claim, send, deliver and commit; returns the rows delivered (0: none claimed, or rolled back). */
    private static int batch(Connection c, KafkaProducer<String, byte[]> producer) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (PreparedStatement claim = c.prepareStatement(CLAIM); ResultSet r = claim.executeQuery()) {
            while (r.next()) {
                rows.add(new Row(r.getObject(1, UUID.class), r.getLong(2), r.getString(3), r.getString(4),
                        r.getString(5), r.getBytes(6)));
            }
        }
        if (rows.isEmpty()) {
            c.commit();
            return 0;
        }
        rows.sort(Comparator.comparingLong(Row::seq));
        List<Future<RecordMetadata>> acks = new ArrayList<>(rows.size());
        for (Row row : rows) {
            acks.add(producer.send(NaiveRelay.record(row.id().toString(), row.topic(), row.key(), row.eventType(),
                    row.payload())));
        }
        producer.flush();
        try {
            for (Future<RecordMetadata> ack : acks) {
                ack.get();
            }
        } catch (Exception e) {
            System.out.println("reference relay: send failed, batch rolled back: " + e);
            c.rollback();
            return 0;
        }
        deliver(c, rows);
        c.commit();
        return rows.size();
    }

    private static void deliver(Connection c, List<Row> rows) throws SQLException {
        try (PreparedStatement deliver = c.prepareStatement(DELIVER)) {
            Array ids = c.createArrayOf("uuid", rows.stream().map(Row::id).toArray());
            deliver.setArray(1, ids);
            int n = deliver.executeUpdate();
            if (n != rows.size()) {
                throw new IllegalStateException("delivered " + n + " of " + rows.size() + " claimed rows");
            }
        }
    }
}
