package dev.dispatcher.app.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dispatcher.app.store.IngestMessage;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Bounded parsing ({@link IngestRequestParser}) with the service's default limits (1 MiB payloads, 500 messages a
 * batch): a body is refused as soon as it passes a limit, having built no tree of the whole document, and what it
 * accepts is stored byte for byte as before (compact JSON, numbers as written).
 */
class IngestRequestParserTest {

    private static final long MAX_PAYLOAD = 1024 * 1024;
    private static final int MAX_BATCH = 500;
    private final IngestRequestParser parser =
            new IngestRequestParser(MAX_PAYLOAD, MAX_BATCH, Duration.ofDays(7), Clock.systemUTC());

    @Test
    void aTokenBombBatchIsRefusedAtItsFirstItemPastTheLimitWithoutATreeOfTheDocument() {
        byte[] bomb = batchOf(2_800_000, "{}"); // 8.4 MB: within the default batch body limit (8 MiB + 64 KiB)
        assertThat((long) bomb.length).isLessThanOrEqualTo(new IngestLimits(MAX_PAYLOAD, MAX_BATCH).batchBodyBytes());
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

        long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
        assertThatThrownBy(() -> parser.parseBatch(bomb))
                .isInstanceOfSatisfying(IngestProblem.TooLarge.class, e -> assertThat(e.field()).isEqualTo("$"))
                .hasMessageContaining("max-batch-size (500)");
        long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;

        // a tree of 2,800,000 objects takes hundreds of MB; 501 items a few hundred KB
        assertThat(allocated).as("bytes allocated while refusing").isLessThan(16L * 1024 * 1024);
    }

    @Test
    void aPayloadBombIsRefusedOnceItsCopyPassesWhatAnyPayloadCanTake() {
        String payload = "[" + "{},".repeat(1_000_000) + "{}]"; // 3 MB of JSON, some 1,000,000 nodes as a tree
        byte[] body = ("{\"topic\":\"orders\",\"type\":\"T\",\"payload\":" + payload + "}")
                .getBytes(StandardCharsets.UTF_8);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

        long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
        assertThatThrownBy(() -> parser.parseOne(body))
                .isInstanceOfSatisfying(IngestProblem.TooLarge.class,
                        e -> assertThat(e.field()).isEqualTo("payload"));
        assertThat(threads.getCurrentThreadAllocatedBytes() - allocatedBefore).as("bytes allocated while refusing")
                .isLessThan(32L * 1024 * 1024);
    }

    @Test
    void nestingDeeperThanTheBoundIsRefused() {
        String deep = "[".repeat(IngestRequestParser.MAX_NESTING_DEPTH + 1)
                + "]".repeat(IngestRequestParser.MAX_NESTING_DEPTH + 1);
        byte[] body = ("{\"topic\":\"orders\",\"type\":\"T\",\"payload\":" + deep + "}")
                .getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> parser.parseOne(body)).isInstanceOf(IngestProblem.TooLarge.class)
                .hasMessageContaining("nesting");
    }

    @Test
    void aBatchAtTheLimitIsReadAndItsPayloadsKeptAsCompactJsonWithNumbersAsWritten() {
        byte[] body = batchOf(MAX_BATCH, "{\"topic\":\"orders\",\"type\":\"T\",\"payload\": {\"a\" : 1.10, \"b\":1e3,"
                + " \"c\":[123456789012345678901234567890, \"\\u00e9\"]}}");

        List<IngestMessage> messages = parser.parseBatch(body);

        assertThat(messages).hasSize(MAX_BATCH);
        assertThat(new String(messages.getFirst().payload(), StandardCharsets.UTF_8))
                .isEqualTo("{\"a\":1.10,\"b\":1E+3,\"c\":[123456789012345678901234567890,\"\u00e9\"]}");
    }

    @Test
    void aBinaryPayloadAtTheLimitIsTakenAndOneByteMoreIsNot() {
        byte[] atLimit = new byte[(int) MAX_PAYLOAD];
        IngestMessage message = parser.parseOne(binary(atLimit));
        assertThat(message.payload()).hasSize((int) MAX_PAYLOAD);

        assertThatThrownBy(() -> parser.parseOne(binary(new byte[(int) MAX_PAYLOAD + 1])))
                .isInstanceOfSatisfying(IngestProblem.TooLarge.class, e -> assertThat(e.field()).isEqualTo("payload"));
    }

    private static byte[] binary(byte[] payload) {
        return ("{\"topic\":\"orders\",\"type\":\"T\",\"contentType\":\"application/octet-stream\",\"payload\":\""
                + Base64.getEncoder().encodeToString(payload) + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] batchOf(int items, String item) {
        StringBuilder body = new StringBuilder(items * (item.length() + 1) + 2).append('[');
        for (int i = 0; i < items; i++) {
            body.append(i == 0 ? "" : ",").append(item);
        }
        return body.append(']').toString().getBytes(StandardCharsets.UTF_8);
    }
}
