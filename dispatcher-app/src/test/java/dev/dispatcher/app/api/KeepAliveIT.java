package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A keep-alive connection goes on being served whatever order its requests' answers complete in. The client writes
 * two requests in one go, the first answered after a database write, the second at once (a 401); it reads both
 * answers and then sends a third on the same connection, which must be answered too. Reactor Netty 1.3.6 and 1.3.7
 * queued the second request behind the first and, once the queue drained, never read from the connection again, so
 * the third waited for ever (reactor/reactor-netty#4361): any client that reuses connections could be left waiting.
 */
class KeepAliveIT extends ApiTestSupport {

    private static final int ANSWER_TIMEOUT_MILLIS = 10_000;

    @Test
    void aConnectionIsReadAgainAfterItsQueuedRequestsAreAnswered() throws IOException {
        byte[] slow = rawIngestRequest(IngestApiIT.item(UUID.randomUUID(), uniqueTopic("keep-alive"), "k", "1"));
        String immediate = "GET /v1/me HTTP/1.1\r\nHost: localhost\r\n\r\n";
        ByteArrayOutputStream both = new ByteArrayOutputStream();
        both.writeBytes(slow);
        both.writeBytes(immediate.getBytes(StandardCharsets.US_ASCII));
        try (Socket socket = new Socket("localhost", port)) {
            socket.setSoTimeout(ANSWER_TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write(both.toByteArray()); // one write: the second request arrives before the first is answered
            out.flush();
            assertThat(statusOf(in)).as("the write's answer").isEqualTo(202);
            assertThat(statusOf(in)).as("the unauthenticated request's answer").isEqualTo(401);

            out.write(immediate.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(statusOf(in)).as("the next request on the same connection").isEqualTo(401);
        }
    }

    /** Reads one whole HTTP/1.1 answer (its body sized by Content-Length) and returns its status. */
    private static int statusOf(InputStream in) throws IOException {
        String head;
        try {
            head = readHead(in);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no answer within " + ANSWER_TIMEOUT_MILLIS + " ms", e);
        }
        int length = 0;
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring("content-length:".length()).trim());
            }
        }
        assertThat(in.readNBytes(length)).as("the answer's body").hasSize(length);
        return Integer.parseInt(head.split(" ", 3)[1]);
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            assertThat(b).as("the connection still open").isNotNegative();
            head.write(b);
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.US_ASCII);
    }
}
