package dev.dispatcher.app.config;

import static dev.dispatcher.app.config.PropertyBinding.assertInvalid;
import static dev.dispatcher.app.config.PropertyBinding.bind;
import static dev.dispatcher.app.config.PropertyBinding.bindUnwrapped;
import static dev.dispatcher.app.config.PropertyBinding.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.dispatcher.app.config.InboxProperties.Consumer;
import dev.dispatcher.app.config.InboxProperties.Webhook;
import dev.dispatcher.app.config.RelayProperties.Ordering;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

/**
 * {@code dispatcher.inbox.consumers[i].*} and {@code dispatcher.sources[i].*}: defaults, binding and refusals
 * naming the property.
 */
class InboxAndSourcePropertiesTest {

    @Test
    void inboxConsumerDefaultsAndRules() {
        Consumer webhook = Consumer.of("billing", List.of("orders"), null, null,
                new Webhook(URI.create("https://billing.example/hook"), null));
        assertThat(new InboxProperties(List.of(webhook)).consumers()).singleElement().satisfies(consumer -> {
            assertThat(consumer.groupId()).isEqualTo("dispatcher-billing");
            assertThat(consumer.handler()).isEqualTo(Consumer.WEBHOOK_HANDLER);
            assertThat(consumer.webhook().timeout()).isEqualTo(Webhook.DEFAULT_TIMEOUT);
        });

        assertInvalid(() -> new InboxProperties(List.of(Consumer.of("billing", List.of(), null, "local", null))),
                "dispatcher.inbox.consumers[0].topics must name at least one topic, but was empty");
        assertInvalid(() -> new InboxProperties(List.of(Consumer.of(null, List.of("orders"), null, "local", null))),
                "dispatcher.inbox.consumers[0].name must be 1 to 200 letters, digits, '.', '_' or '-', but was"
                        + " absent");
        assertInvalid(() -> new InboxProperties(List.of(Consumer.of("billing", List.of("orders"), null, null,
                        new Webhook(URI.create("ftp://x/y"), null)))),
                "dispatcher.inbox.consumers[0].webhook.url must be an absolute http or https URL, but was"
                        + " 'ftp://x/y'");
    }

    @Test
    void inboxConsumerKnobsTakeTheirDefaultsAndNameTheIndexedPropertyWhenBad() {
        DispatcherProperties properties = bind(properties(
                "dispatcher.inbox.consumers[0].name", "billing",
                "dispatcher.inbox.consumers[0].topics", "orders",
                "dispatcher.inbox.consumers[0].handler", "local",
                "dispatcher.inbox.consumers[0].batch-size", "50",
                "dispatcher.inbox.consumers[0].concurrency", "32",
                "dispatcher.inbox.consumers[0].handler-timeout", "5s"));

        Consumer consumer = properties.inbox().consumers().getFirst();
        assertThat(consumer.batchSize()).isEqualTo(50);
        assertThat(consumer.concurrency()).isEqualTo(32);
        assertThat(consumer.handlerTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(consumer.maxInFlightBatches()).isEqualTo(Consumer.DEFAULT_MAX_IN_FLIGHT_BATCHES);
        assertThat(consumer.leaseDuration()).isEqualTo(Consumer.DEFAULT_LEASE_DURATION);
        assertThat(consumer.maxBacklog()).isEqualTo(Consumer.DEFAULT_MAX_BACKLOG);
        assertThat(consumer.pollInterval()).isEqualTo(Consumer.DEFAULT_POLL_INTERVAL);
        assertThat(consumer.maxPayloadSize()).isEqualTo(DataSize.ofMegabytes(1));

        assertThatIllegalArgumentException()
                .isThrownBy(() -> bindUnwrapped(properties(
                        "dispatcher.inbox.consumers[0].name", "billing",
                        "dispatcher.inbox.consumers[0].topics", "orders",
                        "dispatcher.inbox.consumers[0].handler", "local",
                        "dispatcher.inbox.consumers[0].concurrency", "0")))
                .withMessage("dispatcher.inbox.consumers[0].concurrency must be between 1 and 4096, but was 0");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> bindUnwrapped(properties(
                        "dispatcher.inbox.consumers[0].name", "billing",
                        "dispatcher.inbox.consumers[0].topics", "orders",
                        "dispatcher.inbox.consumers[0].handler", "local",
                        "dispatcher.inbox.consumers[0].lease-duration", "1s")))
                .withMessage("dispatcher.inbox.consumers[0].lease-duration must be between 2s and 1h, but was 1s");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> bindUnwrapped(properties(
                        "dispatcher.inbox.consumers[0].name", "billing",
                        "dispatcher.inbox.consumers[0].topics", "orders",
                        "dispatcher.inbox.consumers[0].handler", "local",
                        "dispatcher.inbox.consumers[0].max-payload-size", "0B")))
                .withMessage("dispatcher.inbox.consumers[0].max-payload-size must be between 1B and 256MB, but was 0B");
        assertThat(bind(properties(
                "dispatcher.inbox.consumers[0].name", "billing",
                "dispatcher.inbox.consumers[0].topics", "orders",
                "dispatcher.inbox.consumers[0].handler", "local",
                "dispatcher.inbox.consumers[0].max-payload-size", "8MB")).inbox().consumers().getFirst()
                .maxPayloadSize()).isEqualTo(DataSize.ofMegabytes(8));
    }

    @Test
    void inboxConsumerOrderingAndDeadLetterTopicTakeTheirDefaultsAndNameThePropertyWhenBad() {
        Consumer defaults = bind(properties(
                "dispatcher.inbox.consumers[0].name", "billing",
                "dispatcher.inbox.consumers[0].topics", "orders",
                "dispatcher.inbox.consumers[0].handler", "local")).inbox().consumers().getFirst();
        assertThat(defaults.ordering()).isEqualTo(InboxProperties.ConsumerOrdering.NONE);
        assertThat(defaults.deadLetterTopic()).isEmpty();
        assertThat(defaults.deadLetters()).isNull();

        Consumer set = bind(properties(
                "dispatcher.inbox.consumers[0].name", "billing",
                "dispatcher.inbox.consumers[0].topics", "orders,refunds",
                "dispatcher.inbox.consumers[0].handler", "local",
                "dispatcher.inbox.consumers[0].ordering", "per-key",
                "dispatcher.inbox.consumers[0].dead-letter-topic", "{topic}.DLT")).inbox().consumers().getFirst();
        assertThat(set.ordering()).isEqualTo(InboxProperties.ConsumerOrdering.PER_KEY);
        assertThat(set.deadLetters().resolve("refunds")).isEqualTo("refunds.DLT");

        for (String[] bad : new String[][] {
                {"{topic} DLT", "must be a Kafka topic name (letters, digits, '.', '_' or '-', at most 249) in which"
                        + " {topic} stands for the message's topic, but was '{topic} DLT'"},
                {"{topc}.DLT", "must be a Kafka topic name (letters, digits, '.', '_' or '-', at most 249) in which"
                        + " {topic} stands for the message's topic, but was '{topc}.DLT'"},
                {"{topic}", "must name another topic than the message's own ({topic}.DLT, say), but was '{topic}'"},
                {"orders", "must not be the message's own topic ('orders'), but was 'orders'"},
                {"{topic}." + "d".repeat(247), "must give a topic name of at most 249 characters, but gives 254 for"
                        + " topic 'orders', but was '{topic}." + "d".repeat(247) + "'"}}) {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> bindUnwrapped(properties(
                            "dispatcher.inbox.consumers[0].name", "billing",
                            "dispatcher.inbox.consumers[0].topics", "orders",
                            "dispatcher.inbox.consumers[0].handler", "local",
                            "dispatcher.inbox.consumers[0].dead-letter-topic", bad[0])))
                    .withMessage("dispatcher.inbox.consumers[0].dead-letter-topic " + bad[1]);
        }
        assertThatIllegalArgumentException()
                .isThrownBy(() -> bindUnwrapped(properties(
                        "dispatcher.inbox.consumers[0].name", "billing",
                        "dispatcher.inbox.consumers[0].topics", "orders",
                        "dispatcher.inbox.consumers[0].handler", "local",
                        "dispatcher.inbox.consumers[0].ordering", "by-key")))
                .withMessageContaining("by-key");
    }

    /** The relay's three orderings bind; the across-topics option is the relay's alone, never an inbox consumer's. */
    @Test
    void relayOrderingBindsPerKeyAcrossTopicsWhichAnInboxConsumerRefuses() {
        assertThat(bind(properties()).relay().ordering()).isEqualTo(Ordering.PER_KEY);
        assertThat(bind(properties("dispatcher.relay.ordering", "per-key-across-topics")).relay().ordering())
                .isEqualTo(Ordering.PER_KEY_ACROSS_TOPICS);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> bindUnwrapped(properties(
                        "dispatcher.inbox.consumers[0].name", "billing",
                        "dispatcher.inbox.consumers[0].topics", "orders",
                        "dispatcher.inbox.consumers[0].handler", "local",
                        "dispatcher.inbox.consumers[0].ordering", "per-key-across-topics")))
                .withMessageContaining("per-key-across-topics");
    }

    @Test
    void consumerRetryFallsBackToTheGlobalRetryValueByValue() {
        DispatcherProperties properties = bind(properties(
                "dispatcher.retry.max-attempts", "7",
                "dispatcher.retry.initial-delay", "2s",
                "dispatcher.inbox.consumers[0].name", "billing",
                "dispatcher.inbox.consumers[0].topics", "orders",
                "dispatcher.inbox.consumers[0].handler", "local",
                "dispatcher.inbox.consumers[0].retry.max-attempts", "3",
                "dispatcher.inbox.consumers[1].name", "audit",
                "dispatcher.inbox.consumers[1].topics", "orders",
                "dispatcher.inbox.consumers[1].handler", "local"));

        assertThat(properties.consumerRetryPolicy(0).maxAttempts()).isEqualTo(3);
        assertThat(properties.consumerRetryPolicy(0).initialDelay()).isEqualTo(Duration.ofSeconds(2));
        assertThat(properties.consumerRetryPolicy(1).maxAttempts()).isEqualTo(7);
        assertThat(properties.relayRetryPolicy().maxAttempts()).isEqualTo(7);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> bindUnwrapped(properties(
                        "dispatcher.retry.initial-delay", "2s",
                        "dispatcher.inbox.consumers[0].name", "billing",
                        "dispatcher.inbox.consumers[0].topics", "orders",
                        "dispatcher.inbox.consumers[0].handler", "local",
                        "dispatcher.inbox.consumers[0].retry.max-delay", "1s")))
                .withMessage("dispatcher.inbox.consumers[0].retry.max-delay must be at least"
                        + " dispatcher.inbox.consumers[0].retry.initial-delay (2s), but was 1s");
    }

    @Test
    void sourcesBindWithTheirSchemaDefaultingToTheServicesAndAPasswordNeverPrinted() {
        DispatcherProperties properties = bind(properties(
                "dispatcher.schema", "outbox",
                "dispatcher.sources[0].name", "shard-b",
                "dispatcher.sources[0].url", "r2dbc:postgresql://db-b:5432/app",
                "dispatcher.sources[0].username", "relay",
                "dispatcher.sources[0].password", "secret-b",
                "dispatcher.sources[1].name", "shard_c",
                "dispatcher.sources[1].url", "r2dbc:postgresql://relay:secret-c@db-c/app",
                "dispatcher.sources[1].schema", "queue"));

        assertThat(properties.sources()).extracting(SourceProperties::name).containsExactly("shard-b", "shard_c");
        assertThat(properties.sources()).extracting(SourceProperties::schema).containsExactly("outbox", "queue");
        assertThat(properties.sourceNames()).containsExactly("default", "shard-b", "shard_c");
        assertThat(properties.sources().toString()).doesNotContain("secret-b", "secret-c");
        assertThat(DispatcherProperties.defaults().sources()).isEmpty();
        assertThat(DispatcherProperties.defaults().sourceNames()).containsExactly("default");
    }

    @Test
    void badSourcesAreRefusedNamingTheProperty() {
        String url = "r2dbc:postgresql://db-b/app";
        assertThatIllegalArgumentException().isThrownBy(() -> bindUnwrapped(properties(
                        "dispatcher.sources[0].name", "b", "dispatcher.sources[0].url", url,
                        "dispatcher.sources[1].name", "b", "dispatcher.sources[1].url", url)))
                .withMessage("dispatcher.sources[1].name must be unique, same as sources[0], but was 'b'");
        assertThatIllegalArgumentException().isThrownBy(() -> bindUnwrapped(properties(
                        "dispatcher.sources[0].name", "b")))
                .withMessage("dispatcher.sources[0].url must be set (r2dbc:postgresql://host:port/database), but was"
                        + " absent");
        assertThatIllegalArgumentException().isThrownBy(() -> bindUnwrapped(properties(
                        "dispatcher.sources[0].name", "b",
                        "dispatcher.sources[0].url", "jdbc:postgresql://u:pw@db-b/app")))
                .withMessage("dispatcher.sources[0].url must be an R2DBC URL (r2dbc:postgresql://host:port/database),"
                        + " but was 'jdbc:postgresql://u:******@db-b/app'");
        assertThatIllegalArgumentException().isThrownBy(() -> bindUnwrapped(properties(
                        "dispatcher.sources[0].name", "default", "dispatcher.sources[0].url", url)))
                .withMessage("dispatcher.sources[0].name must not be 'default', the name of the source of"
                        + " spring.r2dbc.*, but was 'default'");
        assertThatIllegalArgumentException().isThrownBy(() -> bindUnwrapped(properties(
                        "dispatcher.sources[0].name", "Shard B", "dispatcher.sources[0].url", url)))
                .withMessage("dispatcher.sources[0].name must be 1 to 63 lowercase letters, digits, '_' or '-',"
                        + " starting with a letter or digit, but was 'Shard B'");
        assertThatIllegalArgumentException().isThrownBy(() -> bindUnwrapped(properties(
                        "dispatcher.sources[0].name", "b", "dispatcher.sources[0].url", url,
                        "dispatcher.sources[0].schema", "Bad-Schema")))
                .withMessageStartingWith("dispatcher.sources[0].schema must be an unquoted PostgreSQL identifier");
    }

    @Test
    void anInboxConsumerNamesAKnownSource() {
        Map<String, String> consumer = properties(
                "dispatcher.sources[0].name", "shard-b", "dispatcher.sources[0].url", "r2dbc:postgresql://db-b/app",
                "dispatcher.inbox.consumers[0].name", "billing", "dispatcher.inbox.consumers[0].topics[0]", "orders",
                "dispatcher.inbox.consumers[0].handler", "local");

        assertThat(bind(consumer).inbox().consumers().get(0).source()).isEqualTo("default");
        consumer.put("dispatcher.inbox.consumers[0].source", "shard-b");
        assertThat(bind(consumer).inbox().consumers().get(0).source()).isEqualTo("shard-b");
        consumer.put("dispatcher.inbox.consumers[0].source", "shard-c");
        assertThatIllegalArgumentException().isThrownBy(() -> bindUnwrapped(consumer))
                .withMessage("dispatcher.inbox.consumers[0].source must name a source (known: default, shard-b), but"
                        + " was 'shard-c'");
    }
}
