package dev.dispatcher.app.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;

class BatchItemCountTest {

    private static final int MAX_BATCH = 3;
    private final IngestRequestParser parser =
            new IngestRequestParser(1024, MAX_BATCH, Duration.ofDays(7), Clock.systemUTC());

    @Test
    void anItemPastTheLimitIsRefusedAtTheBufferItArrivesInAsTheParserRefusesIt() {
        String body = "[{\"a\":[1,2,{\"b\":\"],[{\"}]},{},\"x\",{}, {\"never\":\"read\"}]";
        BatchItemCount count = parser.batchItemCount();
        int fourthItem = body.indexOf("{}, {");
        int fed = 0;
        while (fed + 5 <= fourthItem) {
            count.feed(buffer(body.substring(fed, fed + 5)));
            fed += 5;
        }
        String rest = body.substring(fed);
        assertThatThrownBy(() -> count.feed(buffer(rest)))
                .isInstanceOf(IngestProblem.TooLarge.class)
                .hasMessage(IngestRequestParser.tooManyItems(MAX_BATCH).getMessage());
        assertThatThrownBy(() -> parser.parseBatch(body.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IngestProblem.TooLarge.class)
                .hasMessage(IngestRequestParser.tooManyItems(MAX_BATCH).getMessage());
    }

    @Test
    void aBatchAtTheLimitOneByteAtATimeIsNotRefused() {
        String body = "[{\"topic\":\"t,]\"}, [[[]]], {\"k\":{\"n\":[1,2,3,4,5]}}]";
        BatchItemCount count = parser.batchItemCount();
        for (int i = 0; i < body.length(); i++) {
            count.feed(buffer(body.substring(i, i + 1)));
        }
        count.close();
    }

    @Test
    void whatIsNotAnArrayOfItemsIsLeftToTheParser() {
        for (String body : new String[] {"{\"a\":1,\"b\":2,\"c\":3,\"d\":4}", "[1,2,3,,,,,4,5]", "[\"\\u00zz\",1,2,3,4]",
                "not json at all, [1,2,3,4,5]"}) {
            BatchItemCount count = parser.batchItemCount();
            assertThatNoException().as(body).isThrownBy(() -> count.feed(buffer(body)));
            count.close();
        }
    }

    @Test
    void aBufferIsReadWithoutMovingItsReadPosition() {
        DataBuffer buffer = buffer("[{},{}");
        parser.batchItemCount().feed(buffer);
        assertThat(buffer.readPosition()).isZero();
        assertThat(buffer.readableByteCount()).isEqualTo(6);
    }

    private static DataBuffer buffer(String text) {
        return DefaultDataBufferFactory.sharedInstance.wrap(text.getBytes(StandardCharsets.UTF_8));
    }
}
