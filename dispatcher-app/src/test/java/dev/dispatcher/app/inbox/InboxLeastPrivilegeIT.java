package dev.dispatcher.app.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.testkit.SecuredKafka;
import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An inbox consumer as a least-privilege Kafka principal: on the kit's {@link SecuredKafka} (SASL/PLAIN, KRaft's
 * StandardAuthorizer), user {@code inbox} has only Read on the topics {@code inbox-granted.} starts and on the
 * consumer groups {@code inbox-group.} starts. Every record is stored, handled once and its offset committed.
 */
class InboxLeastPrivilegeIT {

    private static final String INBOX = "inbox";
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static SecuredKafka kafka;

    @BeforeAll
    static void startKafka() {
        kafka = SecuredKafka.start(false, INBOX);
        kafka.allowConsumer(INBOX, "inbox-granted.", "inbox-group.");
    }

    @AfterAll
    static void stopKafka() {
        kafka.close();
    }

    @Test
    void aConsumerWithOnlyReadOnItsTopicsAndGroupStoresAndHandlesEveryRecordAndCommitsItsOffsets() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_least_privilege", kafka)) {
            String topic = "inbox-granted." + fx.schema;
            String group = "inbox-group." + fx.schema;
            kafka.createTopic(topic, 2);
            fx.consumer(fx.receiver(kafka.clientProperties(INBOX), topic, group), InboxFixture.effectHandler(),
                    InboxFixture.settings("least-privilege", "lp-w1"), InboxFixture.metrics());
            for (int i = 0; i < 100; i++) {
                fx.send(topic, i % 2, "m-" + i, "{\"n\":" + i + "}");
            }

            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE status = 'COMPLETED'", 100, WAIT);
            assertThat(fx.count("SELECT count(*) FROM effect")).as("each handled once").isEqualTo(100);
            for (int partition = 0; partition < 2; partition++) {
                long end = fx.endOffset(topic, partition);
                int p = partition;
                await("partition " + p + "'s offset committed to its end").atMost(WAIT)
                        .until(() -> fx.committed(group, topic, p), OptionalLong.of(end)::equals);
            }
        }
    }
}
