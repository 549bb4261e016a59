package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Two operators replay the same message with the same version at the same time: exactly one wins, the other gets
 * 409 with the current row, and the audit shows one mutation. Both requests are made to wait on a row lock held
 * from a separate connection, so they truly overlap.
 */
class ConcurrentReplayIT extends ApiTestSupport {

    @Test
    void twoOperatorsReplayingTheSameVersionGetOneSuccessAndOneConflict() throws Exception {
        UUID id = seed("DEAD_LETTERED", uniqueTopic("race"), "k", "poison");
        WebClient client = WebClient.builder().baseUrl("http://localhost:" + port).build();

        List<Integer> statuses;
        try (Connection holder = jdbc()) {
            holder.setAutoCommit(false);
            try (PreparedStatement lock = holder.prepareStatement("SELECT 1 FROM outbox_message WHERE id = ? FOR UPDATE")) {
                lock.setObject(1, id);
                lock.execute();
            }
            var both = Flux.merge(replay(client, "operator", id), replay(client, "operator2", id))
                    .collectList().toFuture();
            // wait until both requests are blocked on the row, then let them go
            await("both replays waiting on the row lock").atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> count("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                            + " AND query LIKE '%FOR NO KEY UPDATE%' AND query LIKE '%outbox_message%'") >= 2);
            holder.commit();
            statuses = both.get(30, java.util.concurrent.TimeUnit.SECONDS);
        }

        assertThat(statuses).containsExactlyInAnyOrder(200, 409);
        assertThat(count("SELECT count(*) FROM dispatch_audit WHERE message_id = ? AND action = 'replay'",
                id.toString())).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ? AND version = 1", id)).isEqualTo(1);
    }

    private static Mono<Integer> replay(WebClient client, String user, UUID id) {
        return client.post().uri("/v1/messages/{id}/replay", id)
                .headers(h -> h.setBasicAuth(user, user + "-pw"))
                .header("If-Match", "\"0\"")
                .contentType(MediaType.APPLICATION_JSON)
                .exchangeToMono(response -> response.releaseBody().thenReturn(response.statusCode()))
                .map(HttpStatusCode::value);
    }
}
