package dev.dispatcher.app.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.store.IngestMessage;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class IngestMessageTraceparentTest {

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private final IngestRequestParser parser = new IngestRequestParser(1024, 10, java.time.Duration.ofDays(7), java.time.Clock.systemUTC());

    @Test
    void theIngestSpanIsAddedToMessagesWithoutATraceparent() {
        IngestMessage none = parser.parseOne(body(null)).withTraceparent(TRACEPARENT);
        assertThat(headers(none).get("traceparent").asString()).isEqualTo(TRACEPARENT);

        IngestMessage others = parser.parseOne(body("{\"a\":\"1\",\"b\":\"x,\\\"traceparent\\\":y\"}"))
                .withTraceparent(TRACEPARENT);
        assertThat(headers(others).get("traceparent").asString()).isEqualTo(TRACEPARENT);
        assertThat(headers(others).get("a").asString()).isEqualTo("1");
        assertThat(headers(others).get("b").asString()).isEqualTo("x,\"traceparent\":y");
    }

    @Test
    void aProducersOwnTraceparentWinsWhereverItStands() {
        String own = "00-11111111111111111111111111111111-2222222222222222-01";
        for (String headers : new String[] {"{\"traceparent\":\"" + own + "\"}",
                "{\"a\":\"1\",\"traceparent\":\"" + own + "\"}"}) {
            IngestMessage message = parser.parseOne(body(headers)).withTraceparent(TRACEPARENT);
            assertThat(headers(message).get("traceparent").asString()).isEqualTo(own);
        }
    }

    @Test
    void withoutATraceTheMessageIsUnchanged() {
        IngestMessage message = parser.parseOne(body(null));
        assertThat(message.withTraceparent(null)).isSameAs(message);
    }

    private static byte[] body(String headers) {
        return ("{\"id\":\"" + UUID.randomUUID() + "\",\"topic\":\"t\",\"type\":\"T\",\"payload\":{}"
                + (headers == null ? "" : ",\"headers\":" + headers) + "}").getBytes();
    }

    private static JsonNode headers(IngestMessage message) {
        return IngestRequestParser.JSON.readTree(message.headersJson());
    }
}
