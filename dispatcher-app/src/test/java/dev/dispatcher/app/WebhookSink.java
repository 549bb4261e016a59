package dev.dispatcher.app;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;

/**
 * A webhook receiver on the loopback interface for tests: records every request (headers lower-cased, body) and
 * answers 200, or 422 when the body contains {@value #POISON} (a permanent failure: the inbox dead-letters the
 * message at once). Runs on its own threads, outside Reactor's.
 */
public final class WebhookSink implements AutoCloseable {

    /** Bodies containing this text are refused with 422. */
    public static final String POISON = "poison";

    /** One received request. */
    public record Request(Map<String, String> headers, String body) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final HttpServer server;
    private final ConcurrentLinkedQueue<Request> requests = new ConcurrentLinkedQueue<>();

    private WebhookSink(HttpServer server) {
        this.server = server;
    }

    public static WebhookSink start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            WebhookSink sink = new WebhookSink(server);
            server.createContext("/hook", exchange -> {
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                Map<String, String> headers = exchange.getRequestHeaders().entrySet().stream()
                        .collect(Collectors.toMap(e -> e.getKey().toLowerCase(Locale.ROOT),
                                e -> String.join(",", e.getValue()), (a, b) -> a));
                sink.requests.add(new Request(headers, body));
                exchange.sendResponseHeaders(body.contains(POISON) ? 422 : 200, -1);
                exchange.close();
            });
            server.setExecutor(Executors.newFixedThreadPool(2, r -> {
                Thread thread = new Thread(r, "webhook-sink");
                thread.setDaemon(true);
                return thread;
            }));
            server.start();
            return sink;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hook");
    }

    public List<Request> requests() {
        return List.copyOf(requests);
    }

    /** The first request whose {@code Idempotency-Key} is {@code messageId}, waiting up to {@code timeout}. */
    public Optional<Request> await(String messageId, Duration timeout) {
        return Awaitility.await("a webhook request with Idempotency-Key " + messageId).atMost(timeout)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> requests.stream().filter(r -> messageId.equals(r.header("Idempotency-Key"))).findFirst(),
                        Optional::isPresent);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
