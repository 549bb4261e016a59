package dev.dispatcher.app.config;

import static dev.dispatcher.app.config.PropertyBinding.assertInvalid;
import static dev.dispatcher.app.config.PropertyBinding.bind;
import static dev.dispatcher.app.config.PropertyBinding.bindUnwrapped;
import static dev.dispatcher.app.config.PropertyBinding.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.dispatcher.app.config.RelayProperties.Ordering;
import dev.dispatcher.app.config.SecurityProperties.Token;
import dev.dispatcher.app.config.SecurityProperties.User;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

/**
 * Every {@code dispatcher.*} block but the inbox consumers and the sources: defaults, binding, and refusals naming
 * the property.
 */
class DispatcherPropertiesTest {


    private static final String SHA = "a".repeat(64);
    private static final SplittableRandom RANDOM = new SplittableRandom(1);

    @Test
    void absentBlocksTakeTheNamedDefaults() {
        DispatcherProperties properties = DispatcherProperties.defaults();

        assertThat(properties.schema()).isEqualTo("dispatcher");
        assertThat(properties.workerId()).matches(".+-\\d+").endsWith("-" + ProcessHandle.current().pid());
        assertThat(properties.applicationName()).isEqualTo("dispatcher-" + properties.workerId());
        assertThat(properties.relay()).isEqualTo(new RelayProperties(1000, 4, 64, Duration.ofSeconds(30), Duration.ofSeconds(1),
                Ordering.PER_KEY, Duration.ofMillis(5), DataSize.ofMegabytes(64),
                Duration.ofMinutes(5), RelayProperties.Format.PLAIN, new RelayProperties.CloudEvents(null), ""));
        assertThat(properties.retry()).isEqualTo(new RetryProperties(RetryPolicy.DEFAULT_INITIAL_DELAY,
                RetryPolicy.DEFAULT_MAX_DELAY, RetryPolicy.DEFAULT_MULTIPLIER, RetryPolicy.DEFAULT_JITTER,
                RetryPolicy.DEFAULT_MAX_ATTEMPTS));
        assertThat(properties.retention()).isEqualTo(new RetentionProperties(Duration.ofDays(7), Duration.ofDays(30),
                Duration.ofDays(7), Duration.ofDays(90), Duration.ofDays(30)));
        assertThat(properties.ingest()).isEqualTo(new IngestProperties(DataSize.ofBytes(1024 * 1024), 500, 1_000_000L,
                Duration.ofDays(7), 1, Duration.ofSeconds(10), true, DataSize.ofMegabytes(64), 512, Duration.ofSeconds(10),
                Duration.ofSeconds(10), 128));
        assertThat(properties.demo()).isEqualTo(new DemoProperties(false, 20.0));
        assertThat(properties.security().users()).isEmpty();
        assertThat(properties.security().tokens()).isEmpty();
        assertThat(properties.inbox().consumers()).isEmpty();
        assertThat(properties.operator().readTimeout()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void bindsKebabCaseNamesAndLowerCaseEnumsFromProperties() {
        DispatcherProperties properties = bind(properties(
                "dispatcher.worker-id", "w1",
                "dispatcher.relay.batch-size", "100",
                "dispatcher.relay.ordering", "none",
                "dispatcher.relay.lease-duration", "1m",
                "dispatcher.retry.jitter", "decorrelated",
                "dispatcher.ingest.max-payload-size", "256KB",
                "dispatcher.security.tokens[0].name", "loader",
                "dispatcher.security.tokens[0].sha256", SHA,
                "dispatcher.security.tokens[0].roles", "producer",
                "dispatcher.security.tokens[0].topics", "orders.*,audit",
                "dispatcher.security.auth-failures.limit", "5",
                "dispatcher.inbox.consumers[0].name", "billing",
                "dispatcher.inbox.consumers[0].topics", "orders,refunds",
                "dispatcher.inbox.consumers[0].handler", "local"));

        assertThat(properties.workerId()).isEqualTo("w1");
        assertThat(properties.relay().batchSize()).isEqualTo(100);
        assertThat(properties.relay().maxInFlightBatches()).isEqualTo(RelayProperties.DEFAULT_MAX_IN_FLIGHT_BATCHES);
        assertThat(properties.relay().ordering()).isEqualTo(Ordering.NONE);
        assertThat(properties.relay().leaseDuration()).isEqualTo(Duration.ofMinutes(1));
        assertThat(properties.retry().jitter()).isEqualTo(Jitter.DECORRELATED);
        assertThat(properties.retry().maxAttempts()).isEqualTo(RetryProperties.DEFAULT_MAX_ATTEMPTS);
        assertThat(properties.ingest().maxPayloadSize()).isEqualTo(DataSize.ofKilobytes(256));
        assertThat(properties.security().tokens()).singleElement().satisfies(token -> {
            assertThat(token.roles()).containsExactly("PRODUCER");
            assertThat(token.topics()).containsExactly("orders.*", "audit");
        });
        assertThat(properties.security().authFailures().limit()).isEqualTo(5);
        assertThat(properties.security().authFailures().window())
                .isEqualTo(SecurityProperties.AuthFailures.DEFAULT_WINDOW);
    }

    @Test
    void failedLoginsAreThrottledByDefault() {
        SecurityProperties.AuthFailures defaults = DispatcherProperties.defaults().security().authFailures();
        assertThat(defaults.limit()).isEqualTo(10);
        assertThat(defaults.window()).isEqualTo(Duration.ofMinutes(1));
        assertInvalid(() -> new SecurityProperties.AuthFailures(0, null),
                "dispatcher.security.auth-failures.limit must be between 1 and 1000000, but was 0");
        assertInvalid(() -> new SecurityProperties.AuthFailures(null, Duration.ofMillis(10)),
                "dispatcher.security.auth-failures.window must be between 1s and 1d, but was 10ms");
    }

    @Test
    void bindingStopsAtTheFirstBadValueWithTheFullPropertyName() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> bindUnwrapped(Map.of("dispatcher.relay.batch-size", "0")))
                .withMessage("dispatcher.relay.batch-size must be between 1 and 10000, but was 0");
    }

    @Test
    void relayRangesNameTheProperty() {
        Duration s30 = Duration.ofSeconds(30);
        Duration s1 = Duration.ofSeconds(1);
        Duration ms5 = Duration.ofMillis(5);
        DataSize mb64 = DataSize.ofMegabytes(64);
        Duration m5 = Duration.ofMinutes(5);
        RelayProperties.Format plain = RelayProperties.Format.PLAIN;
        RelayProperties.CloudEvents none = new RelayProperties.CloudEvents(null);
        assertInvalid(() -> new RelayProperties(0, 4, 64, s30, s1, Ordering.PER_KEY, ms5, mb64, m5,
                plain, none, ""),
                "dispatcher.relay.batch-size must be between 1 and 10000, but was 0");
        assertInvalid(() -> new RelayProperties(10_001, 4, 64, s30, s1, Ordering.PER_KEY, ms5, mb64, m5,
                plain, none, ""),
                "dispatcher.relay.batch-size must be between 1 and 10000, but was 10001");
        assertInvalid(() -> new RelayProperties(500, 65, 64, s30, s1, Ordering.PER_KEY, ms5, mb64, m5,
                plain, none, ""),
                "dispatcher.relay.max-in-flight-batches must be between 1 and 64, but was 65");
        assertInvalid(() -> new RelayProperties(500, 4, 0, s30, s1, Ordering.PER_KEY, ms5, mb64, m5,
                plain, none, ""),
                "dispatcher.relay.publish-concurrency must be between 1 and 4096, but was 0");
        assertInvalid(() -> new RelayProperties(500, 4, 64, Duration.ofSeconds(1), s1, Ordering.PER_KEY, ms5, mb64, m5,
                plain, none, ""),
                "dispatcher.relay.lease-duration must be between 2s and 1h, but was 1s");
        assertInvalid(() -> new RelayProperties(500, 4, 64, s30, Duration.ofMillis(5), Ordering.PER_KEY, ms5, mb64, m5,
                plain, none, ""),
                "dispatcher.relay.poll-interval must be between 10ms and 10m, but was 5ms");
        assertInvalid(() -> new RelayProperties(500, 4, 64, s30, s1, Ordering.PER_KEY, ms5, DataSize.ofBytes(0), m5,
                plain, none, ""),
                "dispatcher.relay.max-in-flight-bytes must be positive, but was 0B");
        assertInvalid(() -> new RelayProperties(500, 4, 64, s30, s1, Ordering.PER_KEY, Duration.ofSeconds(2), mb64, m5,
                plain, none, ""),
                "dispatcher.relay.claim-linger must be between 0s and 1s, but was 2s");
        assertInvalid(() -> new RelayProperties(500, 4, 64, s30, s1, Ordering.PER_KEY, ms5, mb64, Duration.ofMillis(500),
                plain, none, ""),
                "dispatcher.relay.missing-topic-timeout must be between 1s and 7d, but was 500ms");
    }

    @Test
    void relayFormatSourceAndDeadLetterTopicTakeTheirDefaultsAndNameThePropertyWhenBad() {
        RelayProperties defaults = DispatcherProperties.defaults().relay();
        assertThat(defaults.format()).isEqualTo(RelayProperties.Format.PLAIN);
        assertThat(defaults.cloudevents().source()).isNull();
        assertThat(defaults.deadLetterTopic()).isEmpty();
        assertThat(defaults.deadLetters()).isNull();

        RelayProperties structured = bind(properties(
                "dispatcher.relay.format", "cloudevents-structured",
                "dispatcher.relay.cloudevents.source", "https://shop.example/orders",
                "dispatcher.relay.dead-letter-topic", "{topic}.DLT")).relay();
        assertThat(structured.format()).isEqualTo(RelayProperties.Format.CLOUDEVENTS_STRUCTURED);
        assertThat(structured.cloudevents().sourceUri()).isEqualTo(URI.create("https://shop.example/orders"));
        assertThat(structured.deadLetters().resolve("orders")).isEqualTo("orders.DLT");
        RelayProperties binary = bind(properties(
                "dispatcher.relay.format", "cloudevents-binary",
                "dispatcher.relay.cloudevents.source", "/orders")).relay();
        assertThat(binary.format()).isEqualTo(RelayProperties.Format.CLOUDEVENTS_BINARY);
        assertThat(binary.cloudevents().source()).isEqualTo("/orders");

        assertThatIllegalArgumentException()
                .isThrownBy(() -> bindUnwrapped(properties("dispatcher.relay.format", "cloudevents-binary")))
                .withMessage("dispatcher.relay.cloudevents.source must be set (a URI reference, the events' source)"
                        + " when dispatcher.relay.format is cloudevents-binary, but was absent");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> bindUnwrapped(properties(
                        "dispatcher.relay.format", "cloudevents-structured",
                        "dispatcher.relay.cloudevents.source", "shop orders")))
                .withMessage("dispatcher.relay.cloudevents.source must be a URI reference (Illegal character in path"
                        + " at index 4), but was 'shop orders'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> bindUnwrapped(properties("dispatcher.relay.format", "avro")))
                .withMessageContaining("avro");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> bindUnwrapped(properties("dispatcher.relay.dead-letter-topic", "{topic} DLT")))
                .withMessage("dispatcher.relay.dead-letter-topic must be a Kafka topic name (letters, digits, '.', '_'"
                        + " or '-', at most 249) in which {topic} stands for the message's topic, but was '{topic} DLT'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> bindUnwrapped(properties("dispatcher.relay.dead-letter-topic", "{topic}")))
                .withMessage("dispatcher.relay.dead-letter-topic must name another topic than the message's own"
                        + " ({topic}.DLT, say), but was '{topic}'");
    }

    @Test
    void aBadMissingTopicTimeoutStopsTheStartNamingTheProperty() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> bindUnwrapped(Map.of("dispatcher.relay.missing-topic-timeout", "0s")))
                .withMessage("dispatcher.relay.missing-topic-timeout must be between 1s and 7d, but was 0s");
        assertThat(bind(properties("dispatcher.relay.missing-topic-timeout", "90s")).relay().missingTopicTimeout())
                .isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void retryRulesNameTheProperty() {
        Duration s1 = Duration.ofSeconds(1);
        assertInvalid(() -> new RetryProperties(Duration.ZERO, s1, 2.0, Jitter.FULL, 10).toPolicy("retry", RANDOM),
                "dispatcher.retry.initial-delay must be at least 1ms, but was 0s");
        assertInvalid(() -> new RetryProperties(Duration.ofSeconds(2), s1, 2.0, Jitter.FULL, 10).toPolicy("retry", RANDOM),
                "dispatcher.retry.max-delay must be at least dispatcher.retry.initial-delay (2s), but was 1s");
        assertInvalid(() -> new RetryProperties(s1, s1, 0.5, Jitter.FULL, 10).toPolicy("retry", RANDOM),
                "dispatcher.retry.multiplier must be a finite number of at least 1, but was 0.5");
        assertInvalid(() -> new RetryProperties(s1, s1, 2.0, Jitter.FULL, 1001).toPolicy("retry", RANDOM),
                "dispatcher.retry.max-attempts must be between 1 and 1000, but was 1001");
    }

    @Test
    void retryBuildsTheDomainPolicy() {
        RetryPolicy policy = new RetryProperties(Duration.ofMillis(100), Duration.ofSeconds(2), 3.0, Jitter.NONE, 7)
                .toPolicy("retry", new SplittableRandom(1));

        assertThat(policy.maxAttempts()).isEqualTo(7);
        assertThat(policy.ceiling(2)).isEqualTo(Duration.ofMillis(300));
        assertThat(policy.delayAfter(10)).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void otherBlocksNameTheProperty() {
        assertInvalid(() -> new RetentionProperties(Duration.ofDays(1), Duration.ZERO, null, null, null),
                "dispatcher.retention.dead-lettered must be positive, but was 0s");
        assertInvalid(() -> new RetentionProperties(null, null, null, null, Duration.ofSeconds(-1)),
                "dispatcher.retention.inbox-dead-lettered must be positive, but was -1s");
        assertInvalid(() -> new IngestProperties(DataSize.ofMegabytes(1), 0, 10L, null, null, null, null, null, null,
                null, null, null),
                "dispatcher.ingest.max-batch-size must be between 1 and 10000, but was 0");
        assertInvalid(() -> new IngestProperties(DataSize.ofMegabytes(1), 10, 10L, Duration.ofDays(400), null, null,
                null, null, null, null, null, null),
                "dispatcher.ingest.max-delay must be between 1s and 365d, but was 400d");
        assertInvalid(() -> new IngestProperties(null, null, null, null, 0, null, null, null, null, null, null, null),
                "dispatcher.ingest.writers must be between 1 and 64, but was 0");
        assertInvalid(() -> new IngestProperties(null, null, null, null, null, Duration.ofMillis(10), null, null, null,
                null, null, null), "dispatcher.ingest.timeout must be between 100ms and 5m, but was 10ms");
        assertInvalid(() -> new IngestProperties(null, null, null, null, null, null, null, DataSize.ofBytes(0), null,
                null, null, null), "dispatcher.ingest.max-queued-bytes must be positive, but was 0B");
        assertInvalid(() -> new IngestProperties(null, null, null, null, null, null, null, null, 0, null, null, null),
                "dispatcher.ingest.max-concurrent-requests must be between 1 and 100000, but was 0");
        assertInvalid(() -> new IngestProperties(null, null, null, null, null, null, null, null, null,
                Duration.ZERO, null, null), "dispatcher.ingest.read-timeout must be between 100ms and 1h, but was 0s");
        assertInvalid(() -> new IngestProperties(null, null, null, null, null, null, null, null, null, null,
                Duration.ofHours(2), null), "dispatcher.ingest.body-timeout must be between 100ms and 1h, but was 2h");
        assertInvalid(() -> new IngestProperties(null, null, null, null, null, null, null, null, 8, null, null, 9),
                "dispatcher.ingest.max-concurrent-requests-per-client must be between 1 and"
                        + " dispatcher.ingest.max-concurrent-requests (8), but was 9");
        assertThat(new IngestProperties(null, null, null, null, null, null, null, null, 8, null, null, null)
                .maxConcurrentRequestsPerClient()).as("a quarter of max-concurrent-requests").isEqualTo(2);
        assertThat(new IngestProperties(null, null, null, null, null, null, null, null, 3, null, null, null)
                .maxConcurrentRequestsPerClient()).as("at least 1").isEqualTo(1);
        assertInvalid(() -> new ServerProperties(0), "dispatcher.server.max-connections must be between 1 and 1000000,"
                + " but was 0");
        assertThat(ServerProperties.defaults().maxConnections()).isEqualTo(10_000);
        assertInvalid(() -> new OperatorProperties(Duration.ofMillis(10)),
                "dispatcher.operator.read-timeout must be between 100ms and 10m, but was 10ms");
        assertInvalid(() -> new DemoProperties(true, 0.01),
                "dispatcher.demo.rate must be between 0.1 and 100000 messages per second, but was 0.01");
        assertInvalid(() -> new DispatcherProperties(null, "Bad-Schema", null, null, null, null, null, null, null, null,
                null, null, null),
                "dispatcher.schema must be an unquoted PostgreSQL identifier (lowercase letters, digits and"
                        + " underscores, not starting with a digit, at most 63 characters), but was 'Bad-Schema'");
        assertInvalid(() -> new DispatcherProperties(null, "s".repeat(64), null, null, null, null, null, null, null, null,
                null, null, null),
                "dispatcher.schema must be an unquoted PostgreSQL identifier (lowercase letters, digits and"
                        + " underscores, not starting with a digit, at most 63 characters), but was '"
                        + "s".repeat(64) + "'");
        assertInvalid(() -> new DispatcherProperties(" ", null, null, null, null, null, null, null, null, null, null,
                null, null),
                "dispatcher.worker-id must not be blank, but was ' '");
    }

    @Test
    void securityNamesTheIndexedPropertyAndNeverPrintsSecrets() {
        assertInvalid(() -> new SecurityProperties(List.of(new User("ops", "{noop}pw", List.of("admin"))), null),
                "dispatcher.security.users[0].roles[0] must be one of PRODUCER, VIEWER, OPERATOR, but was 'ADMIN'");
        assertInvalid(() -> new SecurityProperties(List.of(new User("ops", "plain-secret", List.of("operator"))), null),
                "dispatcher.security.users[0].password must be in Spring Security's {id} form, such as"
                        + " {bcrypt}$2a$10$... or {noop}secret, but was a value without an {id} prefix");
        assertInvalid(() -> new SecurityProperties(null, List.of(
                        new Token("a", SHA, List.of("PRODUCER")), new Token("b", "abc", List.of("PRODUCER")))),
                "dispatcher.security.tokens[1].sha256 must be 64 hexadecimal characters (the SHA-256 of the"
                        + " token), but was a value of 3 characters");
        assertInvalid(() -> new SecurityProperties(null, List.of(
                        new Token("a", SHA, List.of("PRODUCER")), new Token("a", SHA, List.of("OPERATOR")))),
                "dispatcher.security.tokens[1].name must be unique, same as [0], but was 'a'");
        assertInvalid(() -> new SecurityProperties(null, List.of(
                        new Token("a", SHA, List.of("PRODUCER"), List.of("orders.*", "orders/eu")))),
                "dispatcher.security.tokens[0].topics[1] must be a topic name or a pattern of 1 to 249 of"
                        + " [a-zA-Z0-9._-] and '*' (any run of characters), such as orders.*, but was 'orders/eu'");
        assertInvalid(() -> new SecurityProperties(null, List.of(
                        new Token("a", SHA, List.of("VIEWER"), List.of("orders.*")))),
                "dispatcher.security.tokens[0].topics limits what a PRODUCER token may write, so the token must"
                        + " hold PRODUCER, but was set on a token with roles [VIEWER]");
    }

    @Test
    void toStringMasksPasswordsAndTokenHashes() {
        SecurityProperties security = new SecurityProperties(List.of(new User("ops", "{noop}hunter2", List.of("OPERATOR"))),
                List.of(new Token("loader", SHA, List.of("PRODUCER"))));

        assertThat(security.toString()).contains("ops", "loader", "******")
                .doesNotContain("hunter2").doesNotContain(SHA);
        assertThat(DispatcherProperties.defaults().toString()).doesNotContain("hunter2");
    }
}
