package dev.dispatcher.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.dispatcher.app.store.ClaimedInboxMessage;
import dev.dispatcher.app.store.ClaimedOutboxMessage;
import dev.dispatcher.domain.Lease;
import dev.dispatcher.domain.LeasedMessage;
import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.MessageState;
import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.domain.Queue;
import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionOutcome;
import dev.dispatcher.domain.TransitionResult;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.event.KeyValuePair;

/**
 * The per-message log events of the relay and the inbox (a non-applied transition, a dead letter) carry their
 * message as key-value pairs on the event itself: message id, topic, source, consumer (inbox) and the trace id of
 * the message's {@code traceparent}, which structured logging turns into fields ({@code StructuredLogsIT} parses
 * them from a running service); the plain-text message keeps saying the same.
 */
class MessageLogEventsTest {

    private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final DispatcherMetrics metrics = new DispatcherMetrics(new SimpleMeterRegistry(), "orders-db");

    @Test
    void aNonAppliedOutboxTransitionNamesItsMessageTopicSourceAndTrace() {
        ClaimedOutboxMessage message = outbox(Map.of("traceparent", TRACEPARENT));
        TransitionResult stale = new TransitionResult(TransitionOutcome.STALE_LEASE,
                state(message.leased(), MessageStatus.PENDING, 1));

        ILoggingEvent event = single(() -> metrics.transition(Queue.OUTBOX, "worker-a", new Transition.Deliver(),
                stale, message));

        assertThat(event.getLevel()).isEqualTo(Level.WARN);
        assertThat(event.getFormattedMessage()).contains("transition not applied", "worker=worker-a",
                "message=" + message.leased().id().value(), "outcome=stale_lease");
        assertThat(pairs(event)).containsExactly(
                Map.entry("message_id", message.leased().id().value()),
                Map.entry("topic", "orders"),
                Map.entry("source", "orders-db"),
                Map.entry("trace_id", TRACE_ID));
    }

    @Test
    void anInboxDeadLetterNamesItsConsumerTooAndSaysWhy() {
        ClaimedInboxMessage message = inbox(Map.of("traceparent", TRACEPARENT));
        TransitionResult applied = new TransitionResult(TransitionOutcome.APPLIED,
                state(message.leased(), MessageStatus.DEAD_LETTERED, 3));

        ILoggingEvent event = single(() -> metrics.transition(Queue.INBOX, "worker-b",
                new Transition.DeadLetter("handler failed: 500"), applied, message));

        assertThat(event.getLevel()).isEqualTo(Level.WARN);
        assertThat(event.getFormattedMessage()).contains("message dead-lettered", "queue=inbox", "worker=worker-b",
                "message=payment-7", "topic=payments", "consumer=billing", "attempts=3", "reason=handler failed: 500");
        assertThat(pairs(event)).containsExactly(
                Map.entry("message_id", "payment-7"),
                Map.entry("topic", "payments"),
                Map.entry("source", "orders-db"),
                Map.entry("consumer", "billing"),
                Map.entry("trace_id", TRACE_ID));
    }

    @Test
    void whatIsNotKnownIsLeftOutAndAnAppliedDeliveryLogsNothing() {
        ClaimedOutboxMessage message = outbox(Map.of("traceparent", "not a traceparent"));
        ILoggingEvent event = single(() -> metrics.transition(Queue.OUTBOX, "worker-a",
                new Transition.DeadLetter("record too large"),
                new TransitionResult(TransitionOutcome.APPLIED, state(message.leased(), MessageStatus.DEAD_LETTERED,
                        1)), message));
        assertThat(pairs(event)).containsOnlyKeys("message_id", "topic", "source");

        ILoggingEvent withoutRow = single(() -> metrics.transition(Queue.OUTBOX, "worker-a", new Transition.Deliver(),
                new TransitionResult(TransitionOutcome.MISSING, message.leased().asState())));
        assertThat(pairs(withoutRow)).containsOnlyKeys("message_id", "source");

        assertThat(events(() -> metrics.transition(Queue.OUTBOX, "worker-a", new Transition.Deliver(),
                new TransitionResult(TransitionOutcome.APPLIED, message.leased().afterDeliver(Queue.OUTBOX)),
                message))).isEmpty();
    }

    private static ClaimedOutboxMessage outbox(Map<String, String> headers) {
        LeasedMessage leased = leased(MessageId.of(UUID.randomUUID()));
        return new ClaimedOutboxMessage(leased, "orders", "OrderPlaced", "{}".getBytes(StandardCharsets.UTF_8),
                "application/json", headers, null, null, NOW, false);
    }

    private static ClaimedInboxMessage inbox(Map<String, String> headers) {
        return new ClaimedInboxMessage(leased(MessageId.of("payment-7")), "billing", "payments", 0, 42L, null,
                "PaymentTaken", headers, "{}".getBytes(StandardCharsets.UTF_8), NOW, false);
    }

    private static LeasedMessage leased(MessageId id) {
        return new LeasedMessage(id, new Lease("worker", UUID.randomUUID(), NOW.plusSeconds(30)), 0, 1,
                MessageStatus.PENDING, null, 1);
    }

    private static MessageState state(LeasedMessage leased, MessageStatus status, int attempts) {
        return new MessageState(leased.id(), status, UUID.randomUUID(), null, 1, attempts);
    }

    private static Map<String, Object> pairs(ILoggingEvent event) {
        Map<String, Object> pairs = new LinkedHashMap<>();
        for (KeyValuePair pair : event.getKeyValuePairs() == null ? List.<KeyValuePair>of()
                : event.getKeyValuePairs()) {
            pairs.put(pair.key, pair.value);
        }
        return pairs;
    }

    private static ILoggingEvent single(Runnable logging) {
        List<ILoggingEvent> events = events(logging);
        assertThat(events).hasSize(1);
        return events.getFirst();
    }

    private static List<ILoggingEvent> events(Runnable logging) {
        Logger logger = (Logger) LoggerFactory.getLogger(DispatcherMetrics.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            logging.run();
        } finally {
            logger.detachAppender(appender);
        }
        return List.copyOf(appender.list);
    }
}
