package dev.dispatcher.load.gatling;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.StringJoiner;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An HTTP server in the harness's JVM that answers ingest the way the service does, doing no work: {@code POST
 * /v1/messages} {@code 202} with a {@code Location} and a small JSON body, {@code POST /v1/messages/batch} {@code
 * 202} with a result per item, anything else {@code 404}. The ingest benchmark runs its load generator against it
 * before it launches the service ({@code --load-warmup}), so the generator's code is compiled and its classes loaded
 * when the service's first second is measured: the fresh start's ramp then shows the service, not a cold Gatling.
 * Bound to the loopback address only; closing stops it at once.
 */
final class IngestStub implements AutoCloseable {

    private static final String ID_FIELD = "\"id\":\"";
    private static final int UUID_LENGTH = 36;

    private final HttpServer server;
    private final ExecutorService executor;

    private IngestStub(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /** Starts the stub on a free loopback port. */
    static IngestStub start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(executor);
        server.createContext("/v1/messages", IngestStub::answer);
        server.start();
        return new IngestStub(server, executor);
    }

    /** {@code http://127.0.0.1:<port>}. */
    String baseUrl() {
        return "http://" + server.getAddress().getAddress().getHostAddress() + ":" + server.getAddress().getPort();
    }

    private static void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] request;
            try (InputStream in = exchange.getRequestBody()) {
                request = in.readAllBytes();
            }
            String path = exchange.getRequestURI().getPath();
            if (!exchange.getRequestMethod().equals("POST")
                    || !(path.equals("/v1/messages") || path.equals("/v1/messages/batch"))) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            String body = new String(request, StandardCharsets.UTF_8);
            boolean batch = path.endsWith("/batch");
            StringJoiner items = new StringJoiner(",", batch ? "{\"results\":[" : "", batch ? "]}" : "");
            String first = null;
            for (int at = body.indexOf(ID_FIELD); at >= 0 && at + ID_FIELD.length() + UUID_LENGTH <= body.length();
                    at = batch ? body.indexOf(ID_FIELD, at + ID_FIELD.length() + UUID_LENGTH) : -1) {
                String id = body.substring(at + ID_FIELD.length(), at + ID_FIELD.length() + UUID_LENGTH);
                first = first == null ? id : first;
                items.add("{\"id\":\"" + id + "\",\"result\":\"accepted\",\"status\":\"PENDING\"}");
            }
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            if (!batch && first != null) {
                exchange.getResponseHeaders().set("Location", "/v1/messages/" + first);
            }
            byte[] bytes = items.toString().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(202, bytes.length == 0 ? -1 : bytes.length); // 0 would mean chunked
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.close();
    }
}
