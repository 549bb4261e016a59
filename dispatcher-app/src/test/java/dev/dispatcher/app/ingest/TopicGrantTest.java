package dev.dispatcher.app.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dispatcher.app.store.IngestMessage;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

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
    }

    @Test
    void aBatchIsRefusedWholeNamingItsFirstForbiddenItem() {
        TopicGrant grant = TopicGrant.of(List.of("orders.*"));
        List<IngestMessage> batch = List.of(message("orders.eu"), message("payments"), message("refunds"));

        assertThatThrownBy(() -> grant.checkAll(batch)).isInstanceOfSatisfying(IngestProblem.TopicForbidden.class,
                problem -> {
            assertThat(problem.field()).isEqualTo("[1].topic");
            assertThat(problem.topic()).isEqualTo("payments");
            assertThat(problem.getMessage()).contains("'payments'", "orders.*", "nothing was written");
        });
        assertThat(grant.checkAll(List.of(message("orders.us")))).hasSize(1);
    }

    private static IngestMessage message(String topic) {
        return new IngestMessage(UUID.randomUUID(), true, topic, null, "Test", new byte[] {'{', '}'},
                "application/json", null, null, null, null);
    }
}
