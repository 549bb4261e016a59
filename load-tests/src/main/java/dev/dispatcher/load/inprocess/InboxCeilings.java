package dev.dispatcher.load.inprocess;

import dev.dispatcher.load.bench.BenchEnvironment;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * The inbox benchmark's references, measured in the same run, never the code under test: the webhook receiver
 * alone, and PostgreSQL's own one-row durable transactions.
 */
public final class InboxCeilings {

    private InboxCeilings() {
    }

    /**
     * The webhook's reference: the receiver alone, driven at the consumer's concurrency by the same HTTP client stack
     * the webhook handler uses (WebClient on reactor-netty, a pool of {@code concurrency} connections, on the
     * receiver's event loops) with the same payload, after a short warm-up.
     */
    public static double receiver(WebhookReceiver receiver, int concurrency, int requests) {
        ConnectionProvider connections = ConnectionProvider.builder("bench-ceiling").maxConnections(concurrency)
                .pendingAcquireMaxCount(-1).build();
        WebClient client = WebClient.builder().clientConnector(new ReactorClientHttpConnector(
                HttpClient.create(connections).runOn(receiver.loops()))).build();
        byte[] body = "{\"x\":\"ceiling\"}".getBytes(StandardCharsets.UTF_8);
        try {
            post(client, receiver.url("/ceiling"), body, concurrency, Math.min(2_000, requests));
            long start = System.nanoTime();
            long done = post(client, receiver.url("/ceiling"), body, concurrency, requests);
            double rate = done / ((System.nanoTime() - start) / 1e9);
            System.out.printf(Locale.ROOT, "receiver ceiling: %d POSTs at concurrency %d, %d ms each: %.0f/s%n",
                    done, concurrency, receiver.delay().toMillis(), rate);
            return rate;
        } finally {
            connections.disposeLater().block(Duration.ofSeconds(10)); // main thread
        }
    }

    private static long post(WebClient client, String url, byte[] body, int concurrency, int requests) {
        Long ok = Flux.range(0, requests)
                .flatMap(i -> client.post().uri(url).contentType(MediaType.APPLICATION_JSON).bodyValue(body)
                        .exchangeToMono(response -> response.releaseBody().thenReturn(response.statusCode().value()))
                        .timeout(Duration.ofSeconds(10)), concurrency)
                .filter(status -> status == 200)
                .count()
                .block(Duration.ofMinutes(5)); // the harness's main thread waits for its own load
        return ok == null ? 0 : ok;
    }

    /**
     * The in-process handler's reference: PostgreSQL's own one-row durable INSERT transactions at the same
     * concurrency, from plain JDBC threads.
     */
    static double transactions(BenchEnvironment env, int concurrency, int transactions) throws Exception {
        String schema = env.schema("txceiling");
        try (Connection c = env.jdbc(schema); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE bench_effect (message_id text NOT NULL, created_at timestamptz NOT NULL"
                    + " DEFAULT now())");
        }
        int perThread = Math.max(1, transactions / concurrency);
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < concurrency; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try (Connection c = env.jdbc(schema); PreparedStatement insert = c.prepareStatement(
                        "INSERT INTO bench_effect (message_id) VALUES (?)")) {
                    c.setAutoCommit(false);
                    for (int i = 0; i < perThread; i++) {
                        insert.setString(1, UUID.randomUUID().toString());
                        insert.executeUpdate();
                        c.commit();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        double rate = perThread * (double) concurrency / ((System.nanoTime() - start) / 1e9);
        System.out.printf(Locale.ROOT, "transaction ceiling: %d one-row durable transactions at concurrency %d:"
                + " %.0f/s%n", perThread * concurrency, concurrency, rate);
        return rate;
    }
}
