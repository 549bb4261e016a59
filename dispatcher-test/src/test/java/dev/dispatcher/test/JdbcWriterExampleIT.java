package dev.dispatcher.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.client.JdbcOutboxWriter;
import dev.dispatcher.client.OutboxMessage;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/client.md's JUnit 5 example with the JDBC writer, as an application writes it: the relay on the embedded
 * servers, outbox rows written in the application's transactions, and a wait for their delivery, no sleep. Then the
 * same for 1,000 messages, the wait measured (printed, bounded only generously: speed is the benchmarks' to prove)
 * and what reached Kafka counted.
 */
class JdbcWriterExampleIT {

    // --8<-- [start:example]
    @RegisterExtension
    static final DispatcherTestRelay dispatcher = DispatcherTestRelay.builder().topics("orders").build();

    @Test
    void placedOrdersArePublished() throws Exception {
        JdbcOutboxWriter outbox = JdbcOutboxWriter.forSchema(dispatcher.schema());
        List<UUID> ids = new ArrayList<>();
        try (Connection tx = dispatcher.openConnection()) {         // in the application: its DataSource
            tx.setAutoCommit(false);
            for (String order : List.of("o-1", "o-2", "o-3")) {
                ids.add(outbox.write(tx, OutboxMessage.builder("orders", "OrderPlaced").key(order)
                        .jsonPayload("{\"orderId\":\"" + order + "\"}").build()).id());
            }
            tx.commit();
        }

        dispatcher.awaitDelivered(ids);                              // fails at once on a dead letter, with its cause
    }
    // --8<-- [end:example]

    @Test
    void aThousandMessagesAreWaitedForWithoutSleeping() throws Exception {
        String topic = "orders.bulk." + UUID.randomUUID();
        dispatcher.kafka().createTopic(topic, 3);
        JdbcOutboxWriter outbox = JdbcOutboxWriter.forSchema(dispatcher.schema());
        List<UUID> ids = new ArrayList<>();
        try (Connection tx = dispatcher.openConnection()) {
            tx.setAutoCommit(false);
            for (int i = 0; i < 1_000; i++) {
                ids.add(outbox.write(tx, OutboxMessage.builder(topic, "OrderPlaced").key("customer-" + i % 50)
                        .jsonPayload("{\"n\":" + i + "}").build()).id());
            }
            tx.commit();
        }

        long start = System.nanoTime();
        dispatcher.awaitDelivered(ids);
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        System.out.printf("JdbcWriterExampleIT: 1000 messages delivered %d ms after their commit%n",
                waited.toMillis());

        assertThat(waited).as("generous: speed is measured by the benchmarks").isLessThan(Duration.ofSeconds(60));
        List<ConsumerRecord<String, byte[]>> records = dispatcher.kafka().consume(topic, 1_000,
                Duration.ofSeconds(30));
        Set<String> published = records.stream().map(r -> new String(r.headers().lastHeader("message-id").value()))
                .collect(Collectors.toSet());
        assertThat(published).hasSize(1_000)
                .isEqualTo(ids.stream().map(UUID::toString).collect(Collectors.toSet()));
    }
}
