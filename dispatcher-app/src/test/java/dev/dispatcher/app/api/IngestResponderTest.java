package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.ingest.IngestProblem;
import dev.dispatcher.app.ingest.IngestProblem.Overloaded.Reason;
import dev.dispatcher.app.ingest.IngestResult;
import dev.dispatcher.app.store.StoredEntry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The one mapping of ingest outcomes to HTTP: status, headers and body of each result and each problem. */
class IngestResponderTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final StoredEntry ENTRY =
            new StoredEntry(UUID.randomUUID(), 7, "PENDING", 3, Instant.parse("2026-01-01T00:00:00Z"));

    private final IngestResponder responder = new IngestResponder(JSON);
    private final MockServerHttpRequest request = MockServerHttpRequest.post("/v1/messages").build();

    @Test
    void aNewMessageIs202WithItsLocationAndARepeatIs200WithItsETag() {
        MockServerHttpResponse accepted = answer(Mono.just(new IngestResult.Accepted(ENTRY)));
        assertThat(accepted.getStatusCode().value()).isEqualTo(202);
        assertThat(accepted.getHeaders().getLocation()).hasToString("/v1/messages/" + ENTRY.id());
        assertThat(accepted.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_JSON);
        JsonNode body = body(accepted);
        assertThat(body.get("id").asString()).isEqualTo(ENTRY.id().toString());
        assertThat(body.get("seq").asLong()).isEqualTo(7);
        assertThat(body.get("version").asLong()).isEqualTo(3);

        MockServerHttpResponse duplicate = answer(Mono.just(new IngestResult.Duplicate(ENTRY)));
        assertThat(duplicate.getStatusCode().value()).isEqualTo(200);
        assertThat(duplicate.getHeaders().getETag()).isEqualTo("\"3\"");
        assertThat(duplicate.getBodyAsString().block()).isEqualTo(accepted.getBodyAsString().block());
    }

    @Test
    void aBatchIs202WithOneItemPerMessageInOrder() {
        MockServerHttpResponse answer = answer(Mono.just(new IngestResult.Batch(List.of(
                new IngestResult.Accepted(ENTRY), new IngestResult.Duplicate(ENTRY), new IngestResult.Conflict(ENTRY)))));

        assertThat(answer.getStatusCode().value()).isEqualTo(202);
        JsonNode items = body(answer).get("results");
        assertThat(items).hasSize(3);
        for (int i = 0; i < 3; i++) {
            assertThat(items.get(i).get("index").asInt()).isEqualTo(i);
        }
        assertThat(List.of(items.get(0).get("result").asString(), items.get(1).get("result").asString(),
                items.get(2).get("result").asString())).containsExactly("accepted", "duplicate", "conflict");
    }

    @Test
    void eachProblemHasItsStatusTypeAndRetryAfter() {
        UUID id = UUID.randomUUID();
        Map<Throwable, String> problems = Map.of(
                new IngestProblem.Invalid("topic", "bad"), "400 invalid-field",
                new IngestProblem.Malformed("not JSON"), "400 malformed-json",
                new IngestProblem.TooLarge("payload", "big"), "413 too-large",
                new IngestProblem.TopicForbidden("topic", "payments", "no"), "403 topic-forbidden",
                new IngestProblem.BacklogFull(10, 10), "429 backlog-full 2",
                new IngestProblem.Overloaded(Reason.BUSY, "busy"), "503 ingest-busy 1",
                new IngestProblem.Overloaded(Reason.MEMORY_FULL, 5, "full"), "503 ingest-memory-full 1",
                new IngestProblem.Overloaded(Reason.QUEUE_FULL, "queue"), "503 ingest-queue-full 1",
                new IngestProblem.Overloaded(Reason.WAITED_TOO_LONG, "late"), "503 ingest-timeout 1",
                new IngestProblem.Overloaded(Reason.WRITE_TIMED_OUT, "maybe"), "503 ingest-write-timeout 1");
        problems.forEach((problem, expected) -> {
            MockServerHttpResponse answer = answer(Mono.error(problem));
            JsonNode body = body(answer);
            String retryAfter = answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER);
            assertThat(answer.getStatusCode().value() + " " + body.get("type").asString().substring(
                    ProblemType.BASE.length()) + (retryAfter == null ? "" : " " + retryAfter))
                    .as(problem.getClass().getSimpleName()).isEqualTo(expected);
            assertThat(answer.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
            assertThat(body.get("status").asInt()).isEqualTo(answer.getStatusCode().value());
            assertThat(body.get("detail").asString()).isEqualTo(problem.getMessage());
            assertThat(body.get("instance").asString()).isEqualTo("/v1/messages");
        });

        assertThat(body(answer(Mono.error(new IngestProblem.TopicForbidden("[1].topic", "payments", "no"))))
                .get("field").asString()).isEqualTo("[1].topic");
        assertThat(body(answer(Mono.error(new IngestProblem.Overloaded(Reason.MEMORY_FULL, 5, "full"))))
                .get("queuedBytes").asLong()).isEqualTo(5);
        MockServerHttpResponse removed = answer(Mono.error(new IngestProblem.RowRemoved(id, "gone")));
        assertThat(removed.getStatusCode().value()).isEqualTo(409);
        assertThat(body(removed).get("id").asString()).isEqualTo(id.toString());
        MockServerHttpResponse conflict = answer(Mono.just(new IngestResult.Conflict(ENTRY)));
        assertThat(conflict.getStatusCode().value()).isEqualTo(409);
        assertThat(body(conflict).get("status").asString()).isEqualTo("PENDING");
    }

    @Test
    void aClientPastItsShareIs429TooManyIngestRequestsWithRetryAfter() {
        MockServerHttpResponse answer = answer(Mono.error(new IngestProblem.Overloaded(Reason.CLIENT_BUSY, "share")));

        assertThat(answer.getStatusCode().value()).isEqualTo(429);
        assertThat(body(answer).get("type").asString()).isEqualTo(ProblemType.BASE + "too-many-ingest-requests");
        assertThat(answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
    }

    @Test
    void aFailureNoOneExpectedIs500NamingTheRequest() {
        MockServerHttpResponse answer = answer(Mono.error(new IllegalStateException("boom")));

        assertThat(answer.getStatusCode().value()).isEqualTo(500);
        assertThat(body(answer).get("requestId").asString()).isEqualTo(request.getId());
        assertThat(answer.getBodyAsString().block()).doesNotContain("boom");
    }

    private MockServerHttpResponse answer(Mono<IngestResult> outcome) {
        MockServerHttpResponse response = new MockServerHttpResponse();
        responder.answer(request, response, outcome).block(Duration.ofSeconds(5));
        return response;
    }

    private static JsonNode body(MockServerHttpResponse response) {
        return JSON.readTree(response.getBodyAsString().block(Duration.ofSeconds(5)));
    }
}
