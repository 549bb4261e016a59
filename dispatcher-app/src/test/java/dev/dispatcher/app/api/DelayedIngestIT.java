package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;

/**
 * {@code deliverAt} and {@code delay} on ingest become the row's {@code visible_after} on the database clock; the
 * delays here are long, so the test context's relay leaves the rows alone. Bad values are cases of
 * {@code MalformedRequestsIT}.
 */
class DelayedIngestIT extends ApiTestSupport {

    private String message(UUID id, String delivery) {
        return "{\"id\":\"" + id + "\",\"topic\":\"" + uniqueTopic("delayed") + "\",\"key\":\"k\",\"type\":\"Reminder\","
                + "\"payload\":{}," + delivery + "}";
    }

    @Test
    void aDelayIsStoredAsVisibleAfterOnTheDatabaseClock() {
        UUID id = UUID.randomUUID();
        producer().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(message(id, "\"delay\":\"PT10M\""))
                .exchange()
                .expectStatus().isAccepted();

        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ?::uuid AND visible_after BETWEEN"
                + " clock_timestamp() + interval '9 minutes 50 seconds' AND clock_timestamp() + interval '10 minutes'",
                id)).isEqualTo(1);
    }

    @Test
    void aDeliverAtIsStoredAsThatInstant() {
        UUID id = UUID.randomUUID();
        Instant at = Instant.now().plus(30, ChronoUnit.MINUTES).truncatedTo(ChronoUnit.SECONDS);
        producer().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(message(id, "\"deliverAt\":\"" + at + "\""))
                .exchange()
                .expectStatus().isAccepted();

        // turned into a delay with the service's clock, added to the database's: the same machine's clock here
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ?::uuid"
                + " AND abs(extract(epoch FROM visible_after - ?::timestamptz)) < 2", id, at.toString()))
                .isEqualTo(1);
    }

    @Test
    void eachItemOfABatchKeepsItsOwnDeliveryTime() {
        UUID delayed = UUID.randomUUID();
        UUID now = UUID.randomUUID();
        producer().post().uri("/v1/messages/batch").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("[" + message(delayed, "\"delay\":\"PT1H\"") + "," + message(now, "\"delay\":\"PT0S\"") + "]")
                .exchange()
                .expectStatus().isAccepted();

        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ?::uuid"
                + " AND visible_after > clock_timestamp() + interval '59 minutes'", delayed)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ?::uuid AND visible_after = created_at", now))
                .isEqualTo(1);
    }
}
