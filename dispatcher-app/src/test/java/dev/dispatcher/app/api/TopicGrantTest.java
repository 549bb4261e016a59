package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dispatcher.app.store.IngestMessage;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;

class TopicGrantTest {

    @Test
    void aStarStandsForAnyRunOfCharactersAndEverythingElseIsLiteral() {
        TopicGrant grant = TopicGrant.of(List.of("orders.*", "audit"));

        assertThat(grant.allows("orders.eu")).isTrue();
        assertThat(grant.allows("orders.eu.created")).isTrue();
        assertThat(grant.allows("orders")).as("the dot is literal and required").isFalse();
        assertThat(grant.allows("ordersXeu")).as("the dot is not a regex wildcard").isFalse();
        assertThat(grant.allows("audit")).isTrue();
        assertThat(grant.allows("audit.log")).isFalse();
        assertThat(grant.allows("payments")).isFalse();
        assertThat(TopicGrant.of(List.of("*-v2")).allows("orders-v2")).isTrue();
    }

    @Test
    void noPatternsMeansEveryTopic() {
        assertThat(TopicGrant.of(List.of())).isSameAs(TopicGrant.ALL);
        assertThat(TopicGrant.ALL.allows("anything")).isTrue();
        assertThat(TopicGrant.of((java.security.Principal) null)).isSameAs(TopicGrant.ALL);
    }

    @Test
    void aBatchIsRefusedWholeNamingItsFirstForbiddenItem() {
        TopicGrant grant = TopicGrant.of(List.of("orders.*"));
        List<IngestMessage> batch = List.of(message("orders.eu"), message("payments"), message("refunds"));

        assertThatThrownBy(() -> grant.checkAll(batch)).isInstanceOfSatisfying(ApiProblem.class, problem -> {
            assertThat(problem.status()).isEqualTo(HttpStatus.FORBIDDEN);
            assertThat(problem.toProblemDetail().getProperties()).containsEntry("field", "[1].topic")
                    .containsEntry("topic", "payments");
            assertThat(problem.getMessage()).contains("'payments'", "orders.*", "nothing was written");
        });
        assertThat(grant.checkAll(List.of(message("orders.us")))).hasSize(1);
    }

    private static IngestMessage message(String topic) {
        return new IngestMessage(UUID.randomUUID(), true, topic, null, "Test", new byte[] {'{', '}'},
                "application/json", null, null, null, null);
    }
}
