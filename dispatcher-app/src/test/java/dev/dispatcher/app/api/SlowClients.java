package dev.dispatcher.app.api;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

/**
 * Hostile and ordinary producers of the ingest ITs over the network: raw connections that send a request head and
 * then trickle its body a byte at a time, and plain posts with an API token.
 */
final class SlowClients {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private SlowClients() {
    }

    /** Adds API token {@code index} named {@code name}, with the PRODUCER role, to a service's properties. */
    static void producerToken(Map<String, Object> properties, int index, String name, String token) {
        String prefix = "dispatcher.security.tokens[" + index + "].";
        properties.put(prefix + "name", name);
        properties.put(prefix + "sha256", HexFormat.of().formatHex(ApiTokenAuthenticationManager.sha256(token)));
        properties.put(prefix + "roles", "PRODUCER");
    }

    /**
     * A raw connection that sends the head of {@code POST path} declaring {@code declared} bytes of JSON, then
     * {@code start} and one byte every 200 ms on {@code trickle}; the caller closes it.
     */
    static Socket slowPost(String baseUrl, String path, String token, long declared, String start,
            ScheduledExecutorService trickle) throws IOException {
        URI uri = URI.create(baseUrl);
        Socket socket = new Socket(uri.getHost(), uri.getPort());
        socket.setSoTimeout(30_000);
        OutputStream out = socket.getOutputStream();
        out.write(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Authorization: Bearer " + token + "\r\nContent-Length: " + declared + "\r\n\r\n" + start)
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        trickle.scheduleAtFixedRate(() -> trickleOneByte(out), 200, 200, TimeUnit.MILLISECONDS);
        return socket;
    }

    static void trickleOneByte(OutputStream out) {
        try {
            out.write('a');
            out.flush();
        } catch (IOException closedByTheServer) {
            // the server answered and closed: nothing more to send on it
        }
    }

    /**
     * What the server sent until it closed the connection (or reset it: a byte trickled after its close may bring a
     * reset before the end of the stream is read).
     */
    static String readUntilClosed(Socket socket) {
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        byte[] chunk = new byte[8192];
        try {
            InputStream in = socket.getInputStream();
            for (int n = in.read(chunk); n >= 0; n = in.read(chunk)) {
                received.write(chunk, 0, n);
            }
        } catch (SocketTimeoutException e) {
            throw new UncheckedIOException("the server neither answered nor closed", e);
        } catch (IOException reset) {
            // closed by the server
        }
        return received.toString(StandardCharsets.ISO_8859_1);
    }

    /** {@code POST path} of a JSON {@code body} with API token {@code token}. */
    static CompletableFuture<HttpResponse<String>> post(String baseUrl, String token, String path, String body) {
        return HTTP.sendAsync(HttpRequest.newBuilder(URI.create(baseUrl + path))
                .header(HttpHeaders.AUTHORIZATION, "Bearer " + token)
                .header(HttpHeaders.CONTENT_TYPE, MediaType.APPLICATION_JSON_VALUE)
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
