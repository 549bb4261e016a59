package dev.dispatcher.app.config;

import static dev.dispatcher.app.config.PropertyRules.orDefault;
import static dev.dispatcher.app.config.PropertyRules.requirePositive;

import java.time.Duration;

/**
 * {@code dispatcher.retention.*}: how long rows are kept after they finish; the retention job deletes older ones.
 *
 * @param delivered delivered outbox rows; also the window in which a repeated ingest id is recognised
 * @param deadLettered dead-lettered outbox rows
 * @param inboxCompleted completed inbox rows: the inbox's deduplication window
 * @param audit operator audit entries
 * @param inboxDeadLettered dead-lettered inbox rows, poison records included
 */
public record RetentionProperties(Duration delivered, Duration deadLettered, Duration inboxCompleted, Duration audit,
        Duration inboxDeadLettered) {

    public static final Duration DEFAULT_DELIVERED = Duration.ofDays(7);
    public static final Duration DEFAULT_DEAD_LETTERED = Duration.ofDays(30);
    public static final Duration DEFAULT_INBOX_COMPLETED = Duration.ofDays(7);
    public static final Duration DEFAULT_AUDIT = Duration.ofDays(90);
    public static final Duration DEFAULT_INBOX_DEAD_LETTERED = Duration.ofDays(30);

    /** Validates; an absent value takes its default. */
    public RetentionProperties {
        delivered = orDefault(delivered, DEFAULT_DELIVERED);
        deadLettered = orDefault(deadLettered, DEFAULT_DEAD_LETTERED);
        inboxCompleted = orDefault(inboxCompleted, DEFAULT_INBOX_COMPLETED);
        audit = orDefault(audit, DEFAULT_AUDIT);
        inboxDeadLettered = orDefault(inboxDeadLettered, DEFAULT_INBOX_DEAD_LETTERED);
        requirePositive("retention.delivered", delivered);
        requirePositive("retention.dead-lettered", deadLettered);
        requirePositive("retention.inbox-completed", inboxCompleted);
        requirePositive("retention.audit", audit);
        requirePositive("retention.inbox-dead-lettered", inboxDeadLettered);
    }

    public static RetentionProperties defaults() {
        return new RetentionProperties(null, null, null, null, null);
    }
}
