package dev.dispatcher.app.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * An admin call Kafka refuses for want of rights, however the client wrapped the refusal, is told apart from one that
 * failed otherwise, and only the first refusal is a warning.
 */
class AdminRefusalsTest {

    private final Logger logger = (Logger) LoggerFactory.getLogger(AdminRefusals.class);
    private final ListAppender<ILoggingEvent> events = new ListAppender<>();
    private final AdminRefusals refusals = new AdminRefusals();

    @BeforeEach
    void attach() {
        events.start();
        logger.addAppender(events);
    }

    @AfterEach
    void detach() {
        logger.detachAppender(events);
    }

    @Test
    void refusalsForWantOfRightsAreToldApartAndOnlyTheFirstIsAWarning() {
        assertThat(refusals.refused("describeCluster", new CompletionException(
                new ClusterAuthorizationException("Cluster authorization failed.")), "goes on")).isTrue();
        assertThat(refusals.refused("describeConfigs of topic 't'", new ExecutionException(
                new TopicAuthorizationException("Topic authorization failed.")), "goes on")).isTrue();
        assertThat(refusals.refused("describeConfigs of topic 'u'",
                new TopicAuthorizationException("Topic authorization failed."), "goes on")).isTrue();

        assertThat(events.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage))
                .singleElement().satisfies(warning -> assertThat(warning).startsWith("Kafka refuses this client"
                        + " describeCluster (ClusterAuthorizationException: Cluster authorization failed.); Dispatcher"
                        + " goes on."));
        assertThat(refusals.warned()).isTrue();
    }

    @Test
    void otherFailuresAreNoRefusalAndNotLogged() {
        assertThat(refusals.refused("describeCluster", new CompletionException(new TimeoutException("no node")),
                "goes on")).isFalse();
        assertThat(refusals.refused("describeConfigs of topic 't'", new UnknownTopicOrPartitionException("gone"),
                "goes on")).isFalse();

        assertThat(events.list).isEmpty();
        assertThat(refusals.warned()).isFalse();
    }
}
