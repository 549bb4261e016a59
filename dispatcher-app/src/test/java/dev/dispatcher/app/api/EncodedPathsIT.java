package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.http.HttpMethod;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.reactive.result.method.RequestMappingInfo;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.pattern.PathPattern;

/**
 * One path, decoded once: routing and Spring Security match a path decoded, so a path written any other way than
 * its canonical form must not reach a rule that reads it as written ({@link CanonicalPaths}). Every mutation the
 * service maps (read from its handler mapping, so a new one is covered without a change here), with each character
 * of its path percent-encoded in turn, posted as {@code text/plain} with valid credentials of the role it needs, is
 * refused, and the durable state (the relay switch, the seeded rows, the audit trail, the outbox) is as before,
 * read through a separate connection. Requests go over a raw socket, so the path reaches the server exactly as
 * written here.
 */
class EncodedPathsIT extends ApiTestSupport {

    @Autowired
    @Qualifier("requestMappingHandlerMapping")
    RequestMappingHandlerMapping mappings;

    private static boolean relayPaused() {
        return count("SELECT count(*) FROM dispatcher_control WHERE name = 'relay_paused' AND enabled") == 1;
    }

    @Test
    void everyMutationPathWithAnyOneCharacterEncodedIsRefusedAndChangesNothing() {
        String topic = uniqueTopic("encoded");
        UUID deadLettered = seed("DEAD_LETTERED", topic, null, "broken");
        UUID pending = seed("PENDING", topic, "k", null);
        long audit = count("SELECT count(*) FROM dispatch_audit");
        assertThat(relayPaused()).isFalse();

        Map<String, HttpMethod> mutations = new TreeMap<>();
        for (RequestMappingInfo info : mappings.getHandlerMethods().keySet()) {
            for (PathPattern pattern : info.getPatternsCondition().getPatterns()) {
                for (RequestMethod method : info.getMethodsCondition().getMethods()) {
                    if (pattern.getPatternString().startsWith("/v1/") && method != RequestMethod.GET) {
                        mutations.put(pattern.getPatternString(), HttpMethod.valueOf(method.name()));
                    }
                }
            }
        }
        assertThat(mutations).as("the mutations the service maps").containsKeys("/v1/relay/pause",
                "/v1/messages", "/v1/messages/{id}/replay", "/v1/inbox/{consumer}/dead-letters/replay");

        String body = "{\"topic\":\"" + topic + "\",\"type\":\"Encoded\",\"payload\":{}}";
        int tried = 0;
        for (Map.Entry<String, HttpMethod> mutation : mutations.entrySet()) {
            String template = mutation.getKey();
            String path = template.replace("{id}", (template.endsWith("/dead-letter") ? pending : deadLettered)
                    .toString()).replace("{consumer}", "orders").replace("{source}", "default");
            assertThat(path).as("every variable given a value").doesNotContain("{");
            String user = ApiAccess.of(mutation.getValue(), template).roles().contains("PRODUCER")
                    ? "producer" : "operator";
            assertThat(send(mutation.getValue(), path, user, "text/plain", body))
                    .as("%s as written", path).startsWith("HTTP/1.1 415");
            for (int i = 0; i < path.length(); i++) {
                if (path.charAt(i) == '/') {
                    continue;
                }
                String encoded = path.substring(0, i) + percentEncoded(path.charAt(i)) + path.substring(i + 1);
                String answer = send(mutation.getValue(), encoded, user, "text/plain", body);
                assertThat(answer).as("%s %s", mutation.getValue(), encoded)
                        .matches("(?s)HTTP/1\\.1 (400|415) .*");
                tried++;
            }
        }
        assertThat(tried).as("encoded variants tried").isGreaterThan(200);

        assertThat(relayPaused()).as("the relay still runs").isFalse();
        assertThat(count("SELECT count(*) FROM dispatch_audit")).as("no operator change audited").isEqualTo(audit);
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ? AND status = 'DEAD_LETTERED'"
                + " AND version = 0", deadLettered)).as("not replayed").isEqualTo(1);
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ? AND status = 'PENDING' AND version = 0",
                pending)).as("not dead-lettered").isEqualTo(1);
        assertThat(count("SELECT count(*) FROM outbox_message WHERE topic = ?", topic)).as("nothing ingested")
                .isEqualTo(2);
    }

    @Test
    void anEncodedPathIsRefusedBeforeTheJsonRuleAndTheRoleAreLookedAt() {
        String answer = send(HttpMethod.POST, "/%761/relay/pause", "operator", "application/json", "");
        assertThat(answer).startsWith("HTTP/1.1 400").contains("application/problem+json",
                "https://dispatcher.dev/problems/non-canonical-path", "an encoded 'v'");
        assertThat(send(HttpMethod.POST, "/%761/relay/pause", null, "text/plain", "")).startsWith("HTTP/1.1 400");
        assertThat(relayPaused()).isFalse();
    }

    @Test
    void dotSegmentsEncodedSlashesPathParametersAndEmptySegmentsAreRefused() {
        for (String path : List.of("/v1/./relay/pause", "/v1/x/../relay/pause", "/v1/relay%2Fpause",
                "/v1/relay%2fpause", "/v1;x=1/relay/pause", "/v1/relay/pause;x=1", "//v1/relay/pause",
                "/v1//relay/pause", "/v1/relay%5cpause", "/v1/relay\\pause", "/v1/%2e%2e/v1/relay/pause",
                "/v1/relay/pause%", "/v1/relay/pause%7", "/v1/relay/pause%zz", "/v1/relay/%2570ause")) {
            assertThat(send(HttpMethod.POST, path, "operator", "application/json", ""))
                    .as(path).startsWith("HTTP/1.1 400");
        }
        assertThat(relayPaused()).isFalse();
    }

    @Test
    void theHealthLimitSeesAnEncodedHealthPathOrNoneSeesIt() {
        for (String path : List.of("/actuator/%68ealth", "/%61ctuator/health/readiness", "/actuator/health%2F",
                "/actuator/./health")) {
            assertThat(send(HttpMethod.GET, path, null, null, null)).as(path).startsWith("HTTP/1.1 400");
        }
        assertThat(send(HttpMethod.GET, "/actuator/health/liveness", null, null, null)).startsWith("HTTP/1.1 200");
    }

    @Test
    void anEncodedCharacterThatNeedsEncodingStillReachesItsEndpoint() {
        // '%20' stands for a character no path of the API holds literally: routed as decoded, to no message
        assertThat(send(HttpMethod.GET, "/v1/messages/not%20a%20uuid", "operator", null, null))
                .startsWith("HTTP/1.1 400").contains("invalid-field");
    }

    private static String percentEncoded(char c) {
        return "%" + String.format(Locale.ROOT, "%02X", (int) c);
    }

    /**
     * Sends one request over a raw socket with the path exactly as given; the whole answer as text. A body is sent
     * only once the server asks for it ({@code Expect: 100-continue}): a refusal that never reads it then leaves no
     * unread bytes behind, which would make the server's close a reset that can lose the answer.
     */
    private String send(HttpMethod method, String path, String user, String contentType, String body) {
        StringBuilder head = new StringBuilder(method.name()).append(' ').append(path)
                .append(" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
        if (user != null) {
            head.append("Authorization: Basic ").append(Base64.getEncoder().encodeToString(
                    (user + ":" + user + "-pw").getBytes(StandardCharsets.UTF_8))).append("\r\n");
        }
        if (contentType != null) {
            head.append("Content-Type: ").append(contentType).append("\r\n");
        }
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        if (body != null) {
            head.append("Content-Length: ").append(bytes.length).append("\r\n");
        }
        if (bytes.length > 0) {
            head.append("Expect: 100-continue\r\n");
        }
        head.append("\r\n");
        try (Socket socket = new Socket("localhost", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String answer = answerHead(in);
            if (answer.startsWith("HTTP/1.1 100")) {
                out.write(bytes);
                out.flush();
                answer = answerHead(in);
            }
            ByteArrayOutputStream rest = new ByteArrayOutputStream();
            try {
                in.transferTo(rest);
            } catch (SocketException reset) {
                // the answer's head is in: what is lost is at most the end of its body
            }
            return answer + rest.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads one answer's status line and headers, up to and including the blank line. */
    private static String answerHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int blank = 0;
        while (blank < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the connection closed within an answer's head: " + head);
            }
            head.write(b);
            blank = (b == '\r' && blank % 2 == 0) || (b == '\n' && blank % 2 == 1) ? blank + 1 : 0;
        }
        return head.toString(StandardCharsets.US_ASCII);
    }
}
