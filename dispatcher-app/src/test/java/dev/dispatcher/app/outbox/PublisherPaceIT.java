package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordPublisher;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The publisher's two paces on a real broker: a partial claim's records leave at once, a full claim's wait the
 * configured {@code linger.ms} to fill the producer's batches. The linger here is 3 s, far above a send's time, so
 * which producer took a record shows in how long its acknowledgement took.
 */
class PublisherPaceIT {

    private static final Duration LINGER = Duration.ofSeconds(3);

    @Test
    void promptRecordsDoNotWaitForTheLingerAndBatchedOnesDo() throws Exception {
        try (RelayFixture fx = new RelayFixture("pace")) {
            String topic = "pace." + UUID.randomUUID();
            fx.kafka.createTopic(topic, 1);
            RecordPublisher publisher = fx.publisher(fx.kafka.bootstrapServers(),
                    Map.of("linger.ms", (int) LINGER.toMillis()));
            publish(publisher, topic, RecordPublisher.Pace.PROMPT); // metadata for the topic, once

            long prompt = publish(publisher, topic, RecordPublisher.Pace.PROMPT);
            long batched = publish(publisher, topic, RecordPublisher.Pace.BATCHED);

            assertThat(Duration.ofNanos(prompt)).as("prompt").isLessThan(LINGER.dividedBy(2));
            assertThat(Duration.ofNanos(batched)).as("batched").isGreaterThanOrEqualTo(LINGER.minusMillis(500));
            assertThat(fx.kafka.consume(topic, 3, Duration.ofSeconds(10))).hasSize(3);
        }
    }

    /** Publishes one record at {@code pace}; returns how long its acknowledgement took, in ns. */
    private static long publish(RecordPublisher publisher, String topic, RecordPublisher.Pace pace) {
        String id = UUID.randomUUID().toString();
        long start = System.nanoTime();
        List<PublishResult> results = publisher.publish(List.of(new OutboundRecord(topic, "k",
                "{}".getBytes(StandardCharsets.UTF_8), Map.of("message-id", id))), true, pace)
                .block(Duration.ofSeconds(30));
        long took = System.nanoTime() - start;
        assertThat(results).containsExactly(PublishResult.SENT);
        return took;
    }
}
