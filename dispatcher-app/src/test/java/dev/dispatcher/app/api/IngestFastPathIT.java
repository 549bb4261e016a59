package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The single-message fast path ({@link IngestFastPath}) answers what the framework would, header for header: each
 * exchange is made twice, once by the Basic producer (the framework's way) and once with the producer's API token
 * (the fast path), and the answers are compared. What the fast path does not take reaches the framework untouched;
 * what it takes it answers whatever the outcome (a conflict, a bad body), as the framework answers it, written once.
 * Durable state is read through fresh connections.
 */
class IngestFastPathIT extends ApiTestSupport {

    private static final String BASIC = "Basic cHJvZHVjZXI6cHJvZHVjZXItcHc="; // producer:producer-pw
    private static final String TOKEN = "Bearer " + PRODUCER_TOKEN;
    /** Headers whose values differ between two answers about different rows. */
    private static final List<String> PER_ROW = List.of("location", "content-length");

    @Autowired
    IngestFastPath fastPath;

    @Autowired
    MeterRegistry meters;

    /**
     * {@code item} held back an hour: the relay runs in this context, and a Deliver between the two exchanges bumps
     * the row's version and with it the repeat's ETag and body (seen in CI once Deliver got faster).
     */
    private static String held(String item) {
        return "{\"delay\":\"PT1H\"," + item.substring(1);
    }

    @Test
    void newAndRepeatedMessagesAreAnsweredAsTheFrameworkAnswersThem() throws Exception {
        String topic = uniqueTopic("fast");
        UUID framework = UUID.randomUUID();
        UUID fast = UUID.randomUUID();
        long answered = fastPath.answered();

        ResponseEntity<String> frameworkNew =
                send(BASIC, held(IngestApiIT.item(framework, topic, "k", "{\"a\":1}")), h -> { });
        ResponseEntity<String> fastNew = send(TOKEN, held(IngestApiIT.item(fast, topic, "k", "{\"a\":1}")), h -> { });
        assertThat(fastPath.answered()).as("the token's request answered by the fast path").isEqualTo(answered + 1);
        assertThat(fastNew.getStatusCode().value()).isEqualTo(frameworkNew.getStatusCode().value()).isEqualTo(202);
        assertThat(headers(fastNew, PER_ROW)).isEqualTo(headers(frameworkNew, PER_ROW));
        assertThat(fastNew.getHeaders().getLocation()).hasToString("/v1/messages/" + fast);
        assertThat(shape(fastNew.getBody())).isEqualTo(shape(frameworkNew.getBody()));
        assertThat(fastNew.getBody()).contains("\"id\":\"" + fast + "\"", "\"status\":\"PENDING\"", "\"version\":0");

        // the same content again (whitespace differs): 200 with the stored entry and its ETag, nothing written
        long rows = outboxRows();
        ResponseEntity<String> frameworkRepeat =
                send(BASIC, held(IngestApiIT.item(framework, topic, "k", "{ \"a\" : 1 }")), h -> { });
        ResponseEntity<String> fastRepeat =
                send(TOKEN, held(IngestApiIT.item(fast, topic, "k", "{ \"a\" : 1 }")), h -> { });
        assertThat(fastPath.answered()).isEqualTo(answered + 2);
        assertThat(fastRepeat.getStatusCode().value()).isEqualTo(frameworkRepeat.getStatusCode().value()).isEqualTo(200);
        assertThat(headers(fastRepeat, PER_ROW)).isEqualTo(headers(frameworkRepeat, PER_ROW));
        assertThat(fastRepeat.getHeaders().getETag()).isEqualTo("\"0\"");
        assertThat(shape(fastRepeat.getBody())).isEqualTo(shape(frameworkRepeat.getBody()));
        assertThat(fastRepeat.getBody()).isEqualTo(fastNew.getBody());
        assertThat(outboxRows()).isEqualTo(rows);

        // stored as the framework stores it: an unsampled root trace context of its own
        assertThat(traceparent(fast)).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00");
        assertThat(traceparent(framework)).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00");
        assertThat(traceparent(fast).substring(3, 35)).isNotEqualTo(traceparent(framework).substring(3, 35));
    }

    @Test
    void everyOtherOutcomeIsTheFrameworksAnswerAndNothingIsWrittenTwice() {
        String topic = uniqueTopic("fast-refused");
        UUID id = UUID.randomUUID();
        send(TOKEN, held(IngestApiIT.item(id, topic, "k", "1")), h -> { }); // the 409s show its status and version
        long rows = outboxRows();
        long answered = fastPath.answered();
        String oversize = "\"" + "x".repeat((int) MAX_PAYLOAD + 10) + "\"";
        List<String> bodies = List.of(
                IngestApiIT.item(id, topic, "k", "2"), // other content: 409
                "{\"topic\":", // not JSON: 400
                IngestApiIT.item(UUID.randomUUID(), "bad topic", "k", "1"), // an invalid field: 400
                IngestApiIT.item(UUID.randomUUID(), topic, "k", oversize)); // too large
        for (String body : bodies) {
            ResponseEntity<String> framework = send(BASIC, body, h -> { });
            ResponseEntity<String> fast = send(TOKEN, body, h -> { });
            assertThat(fast.getStatusCode().value()).as(body).isEqualTo(framework.getStatusCode().value())
                    .isBetween(400, 499);
            assertThat(fast.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
            assertThat(headers(fast, List.of())).isEqualTo(headers(framework, List.of()));
            assertThat(fast.getBody()).isEqualTo(framework.getBody());
        }
        assertThat(fastPath.answered()).as("each answered by the fast path").isEqualTo(answered + bodies.size());
        assertThat(outboxRows()).isEqualTo(rows);
    }

    @Test
    void aFastAnswerIsCountedInTheFrameworksServerTimer() {
        // the one series of a successful 202: a 202 whose client hung up before the answer (as in
        // IngestFaultsFastPathIT) is a series of its own, and an earlier test class in this context may have made it
        long before = successfulAccepts();
        long answered = fastPath.answered();
        send(TOKEN, IngestApiIT.item(UUID.randomUUID(), uniqueTopic("fast-timer"), "k", "1"), h -> { });
        assertThat(fastPath.answered()).as("the token's request answered by the fast path").isEqualTo(answered + 1);
        send(BASIC, IngestApiIT.item(UUID.randomUUID(), uniqueTopic("fast-timer"), "k", "1"), h -> { });

        // the server records its timer once the answer is written, which may be after the client has read it; if the
        // fast answer went to any other series, this series would never reach before + 2
        await("the fast answer and the framework's both counted in the series of a successful 202")
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(successfulAccepts()).isGreaterThanOrEqualTo(before + 2));
    }

    /** The count of {@code http.server.requests}' series of a {@code POST /v1/messages} answered 202 successfully. */
    private long successfulAccepts() {
        Timer accepted = meters.find("http.server.requests").tags("method", "POST", "uri", "/v1/messages",
                "status", "202", "outcome", "SUCCESS", "exception", "none", "error", "none").timer();
        return accepted == null ? 0 : accepted.count();
    }

    @Test
    void requestsTheFastPathDoesNotTakeReachTheFramework() throws Exception {
        String topic = uniqueTopic("fast-not");
        long answered = fastPath.answered();

        // a caller's trace context: the framework's server span continues its trace
        String trace = "4bf92f3577b34da6a3ce929d0e0e4736";
        UUID traced = UUID.randomUUID();
        assertThat(send(TOKEN, IngestApiIT.item(traced, topic, "k", "1"),
                h -> h.set("traceparent", "00-" + trace + "-00f067aa0ba902b7-01")).getStatusCode().value())
                .isEqualTo(202);
        assertThat(traceparent(traced)).startsWith("00-" + trace + "-").endsWith("-01");
        // an operator's token, an unknown token, a JWT
        assertThat(send("Bearer " + OPERATOR_TOKEN, IngestApiIT.item(null, topic, "k", "1"), h -> { })
                .getStatusCode().value()).isEqualTo(403);
        assertThat(send("Bearer not-a-token", IngestApiIT.item(null, topic, "k", "1"), h -> { })
                .getStatusCode().value()).isEqualTo(401);
        assertThat(send("Bearer " + jwt("svc", "dispatcher:produce"), IngestApiIT.item(null, topic, "k", "1"),
                h -> { }).getStatusCode().value()).isEqualTo(202);
        // an answer it cannot give, a body it does not read
        assertThat(send(TOKEN, IngestApiIT.item(null, topic, "k", "1"), h -> h.setAccept(List.of(MediaType.TEXT_PLAIN)))
                .getStatusCode().value()).isEqualTo(406);
        assertThat(send(TOKEN, IngestApiIT.item(null, topic, "k", "1"), h -> h.setContentType(MediaType.TEXT_PLAIN))
                .getStatusCode().value()).isEqualTo(415);

        assertThat(fastPath.answered()).as("none answered by the fast path").isEqualTo(answered);
        // an Accept the fast path knows
        assertThat(send(TOKEN, IngestApiIT.item(null, topic, "k", "1"), h -> h.setAccept(List.of(MediaType.ALL)))
                .getStatusCode().value()).isEqualTo(202);
        assertThat(fastPath.answered()).isEqualTo(answered + 1);
    }

    // ---- helpers

    private ResponseEntity<String> send(String authorization, String body, Consumer<HttpHeaders> headers) {
        return WebClient.builder().baseUrl("http://localhost:" + port).build()
                .post().uri("/v1/messages")
                .header(HttpHeaders.AUTHORIZATION, authorization)
                .contentType(MediaType.APPLICATION_JSON)
                .headers(headers)
                .bodyValue(body)
                .exchangeToMono(response -> response.toEntity(String.class))
                .block(Duration.ofSeconds(30));
    }

    /** An answer's headers by lower-case name, in their order, without those named. */
    private static Map<String, List<String>> headers(ResponseEntity<?> answer, List<String> without) {
        Map<String, List<String>> headers = new TreeMap<>();
        answer.getHeaders().forEach((name, values) -> {
            if (!without.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                headers.put(name.toLowerCase(java.util.Locale.ROOT), values);
            }
        });
        return headers;
    }

    /** A JSON object's field names in order (the values differ between two rows). */
    private static List<String> shape(String json) {
        List<String> names = new ArrayList<>();
        var matcher = java.util.regex.Pattern.compile("\"([a-zA-Z]+)\":").matcher(json);
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }

    private static String traceparent(UUID id) throws Exception {
        try (Connection c = jdbc(); PreparedStatement q = c.prepareStatement(
                "SELECT headers->>'traceparent' FROM outbox_message WHERE id = ?")) {
            q.setObject(1, id);
            try (ResultSet row = q.executeQuery()) {
                assertThat(row.next()).as("row %s stored", id).isTrue();
                return row.getString(1);
            }
        }
    }
}
