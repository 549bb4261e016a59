package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.testkit.SecuredKafka;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The relay as a least-privilege Kafka principal: on the kit's {@link SecuredKafka} (SASL/PLAIN, KRaft's
 * StandardAuthorizer, topics created on first use), user {@code relay} has Write and Describe on the topics {@code
 * granted.} starts, Create only on those {@code granted.created.} starts, and nothing else: no DescribeConfigs, no
 * cluster right. Its topics' rows are all delivered; a topic it may not write has its rows dead-lettered at once with
 * cause {@code authorization} and costs only those rows; a new topic is created where it may create one and held,
 * then dead-lettered after the missing-topic timeout, where it may not. The admin calls Kafka refuses it cost one
 * warning and never a stall (the relay-wide breaker never opens).
 */
class RelayLeastPrivilegeIT {

    private static final String RELAY = "relay";
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Long enough that a row held for a missing topic is seen held before it is dead-lettered. */
    private static final Duration MISSING_TOPIC_TIMEOUT = Duration.ofSeconds(15);

    private static SecuredKafka kafka;

    @BeforeAll
    static void startKafka() {
        kafka = SecuredKafka.start(true, RELAY);
        kafka.allowProducer(RELAY, "granted.");
        kafka.allow(RELAY, ResourceType.TOPIC, "granted.created.", PatternType.PREFIXED, AclOperation.CREATE);
    }

    @AfterAll
    static void stopKafka() {
        kafka.close();
    }

    @Test
    void itsTopicsAreDeliveredAndATopicItMayNotWriteIsDeadLetteredForAuthorizationWithOneWarningAndNoStall()
            throws Exception {
        try (RelayFixture fx = new RelayFixture("least_privilege", kafka);
                WarningLog refusals = WarningLog.attach("dev.dispatcher.app.kafka.AdminRefusals");
                WarningLog relayWide = WarningLog.attach("dev.dispatcher.app.outbox.PublishLanes")) {
            String granted = "granted." + fx.schema;
            String forbidden = "forbidden." + fx.schema;
            kafka.createTopic(granted, 3);
            kafka.createTopic(forbidden, 1);
            List<UUID> delivered = fx.seed(granted, 300, i -> "key-" + (i % 10));
            List<UUID> refused = fx.seed(forbidden, 5, i -> "f-" + i);
            DispatcherMetrics metrics = RelayFixture.metrics();
            fx.relay(RelayTopicFaultsIT.settings("least-privilege-relay"), publisher(fx), metrics);

            await("every row of its topic delivered and the other topic's dead-lettered").atMost(WAIT)
                    .until(() -> fx.count("status = 'DELIVERED'") == delivered.size()
                            && fx.count("status = 'DEAD_LETTERED'") == refused.size());

            assertThat(RelayCompetingIT.consumeAll(fx, granted)).hasSize(delivered.size());
            for (UUID id : refused) {
                RelayPoisonAndRetryIT.Row row = RelayPoisonAndRetryIT.row(fx, id);
                assertThat(row.attempts()).as("dead-lettered on its first attempt").isEqualTo(1);
                assertThat(row.lastError()).startsWith("permanent failure: TopicAuthorizationException");
            }
            assertThat(failures(metrics, forbidden, "authorization")).isEqualTo(refused.size());
            assertThat(fx.count("topic = '" + granted + "' AND attempts <> 1")).as("no attempt lost to a refusal")
                    .isZero();
            assertThat(refusals.messages()).as("one warning for the refused admin calls").singleElement()
                    .satisfies(warning -> assertThat(warning).startsWith("Kafka refuses this client"));
            assertThat(relayWide.messages()).as("the relay-wide breaker never opened").isEmpty();
        }
    }

    @Test
    void aNewTopicIsCreatedWhereItMayCreateOneAndHeldThenDeadLetteredWhereItMayNot() throws Exception {
        try (RelayFixture fx = new RelayFixture("least_privilege_new", kafka)) {
            String created = "granted.created." + fx.schema;
            String uncreatable = "granted.missing." + fx.schema;
            List<UUID> rows = fx.seed(created, 200, i -> "key-" + (i % 10));
            UUID held = RelayPoisonAndRetryIT.insert(fx, uncreatable, "m-key", "{}".getBytes());
            fx.relay(RelayTopicFaultsIT.settings("least-privilege-new-relay")
                    .withMissingTopicTimeout(MISSING_TOPIC_TIMEOUT), publisher(fx), RelayFixture.metrics());

            String cause = "topic '" + uncreatable + "' does not exist (UNKNOWN_TOPIC_OR_PARTITION); this client may"
                    + " not create it (TOPIC_AUTHORIZATION_FAILED: creating a topic on first use needs Create on the"
                    + " topic or the cluster)";
            RelayPoisonAndRetryIT.Row waiting = await("the other topic's row held with the cause").atMost(WAIT)
                    .until(() -> RelayPoisonAndRetryIT.row(fx, held),
                            row -> row.lastError() != null && row.lastError().startsWith(cause + ", missing for"));
            await("the creatable topic's rows delivered").atMost(WAIT)
                    .until(() -> fx.count("status = 'DELIVERED' AND topic = '" + created + "'") == rows.size());
            await("the other topic's row dead-lettered after the missing-topic timeout").atMost(WAIT)
                    .until(() -> fx.count("status = 'DEAD_LETTERED'") == 1);
            RelayPoisonAndRetryIT.Row dead = RelayPoisonAndRetryIT.row(fx, held);

            assertThat(RelayCompetingIT.consumeAll(fx, created)).hasSize(rows.size());
            assertThat(waiting.status()).isEqualTo("PENDING");
            assertThat(waiting.attempts()).as("its attempt given back").isZero();
            assertThat(dead.attempts()).isEqualTo(1);
            assertThat(dead.lastError()).isEqualTo("permanent failure: " + cause
                    + " for PT15S (the missing-topic timeout)");
        }
    }

    /** The service's publisher as user {@code relay}: producers and admin client alike. */
    private static RecordPublisher publisher(RelayFixture fx) {
        return fx.publisher(kafka.clientProperties(RELAY), Map.of());
    }

    private static double failures(DispatcherMetrics metrics, String topic, String cause) {
        return metrics.registry().find("dispatcher.publish.failures").tag("topic", topic).tag("cause", cause)
                .counters().stream().mapToDouble(Counter::count).sum();
    }
}
