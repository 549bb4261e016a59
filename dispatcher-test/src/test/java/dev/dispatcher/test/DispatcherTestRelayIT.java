package dev.dispatcher.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.dispatcher.client.JdbcOutboxWriter;
import dev.dispatcher.client.OutboxMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the waits of {@link DispatcherTestRelay} report beyond a delivery: a dead letter's cause ({@code
 * awaitDeadLettered}), a wait for delivery that fails at once when a message is dead-lettered instead, naming it and
 * its cause, and an inbox consumer's handled messages ({@code awaitHandled}) with a webhook the test serves.
 */
class DispatcherTestRelayIT {

    private static final String SMALL_TOPIC = "refuses.large." + UUID.randomUUID();
    private static final String PAYMENTS = "payments." + UUID.randomUUID();
    private static final Set<String> HOOKED = ConcurrentHashMap.newKeySet();
    private static final HttpServer WEBHOOK = webhook();

    @RegisterExtension
    static final DispatcherTestRelay dispatcher = DispatcherTestRelay.builder()
            .topics(PAYMENTS)
            .webhookConsumer("billing", PAYMENTS, "http://127.0.0.1:" + WEBHOOK.getAddress().getPort() + "/hook")
            .build();

    @AfterAll
    static void stopWebhook() {
        WEBHOOK.stop(0);
    }

    @Test
    void aDeadLetterIsAwaitedAndItsCauseReturned() throws Exception {
        UUID id = writeTooLarge();

        assertThat(dispatcher.awaitDeadLettered(id)).contains("RecordTooLargeException");
    }

    @Test
    void awaitingTheDeliveryOfADeadLetterFailsAtOnceNamingItsCause() throws Exception {
        UUID id = writeTooLarge();

        assertThatThrownBy(() -> dispatcher.awaitDelivered(id))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("1 dead-lettered instead")
                .hasMessageContaining(id.toString())
                .hasMessageContaining("RecordTooLargeException");
    }

    @Test
    void anInboxConsumersHandledMessagesAreAwaited() throws Exception {
        List<String> ids = List.of("payment-" + UUID.randomUUID(), "payment-" + UUID.randomUUID());
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                "bootstrap.servers", dispatcher.bootstrapServers(),
                "key.serializer", "org.apache.kafka.common.serialization.StringSerializer",
                "value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer"))) {
            for (String id : ids) {
                ProducerRecord<String, byte[]> record = new ProducerRecord<>(PAYMENTS, id,
                        "{}".getBytes(StandardCharsets.UTF_8));
                record.headers().add("message-id", id.getBytes(StandardCharsets.UTF_8));
                producer.send(record).get(30, TimeUnit.SECONDS);
            }
        }

        dispatcher.awaitHandled("billing", ids);

        assertThat(HOOKED).as("the webhook's Idempotency-Keys").containsAll(ids);
    }

    /** A message its topic refuses (over the topic's 1 KiB limit): the relay dead-letters it at its first attempt. */
    private static UUID writeTooLarge() throws Exception {
        dispatcher.kafka().createTopic(SMALL_TOPIC, 1, Map.of("max.message.bytes", "1024"));
        try (Connection tx = dispatcher.openConnection()) {
            return JdbcOutboxWriter.forSchema(dispatcher.schema()).write(tx, OutboxMessage.builder(SMALL_TOPIC,
                    "Oversized").payload("x".repeat(4096).getBytes(StandardCharsets.UTF_8)).contentType("text/plain")
                    .build()).id();
        }
    }

    /** Answers 204 to every POST, remembering its Idempotency-Key. */
    private static HttpServer webhook() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/hook", exchange -> {
                exchange.getRequestBody().readAllBytes();
                HOOKED.add(exchange.getRequestHeaders().getFirst("Idempotency-Key"));
                exchange.sendResponseHeaders(204, -1);
                exchange.close();
            });
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
