package dev.dispatcher.domain;

/**
 * The two leased queues Dispatcher runs: the outbox (rows relayed to Kafka) and the inbox (Kafka records handed to
 * handlers). They share statuses and transitions except for the name of the successful terminal status.
 */
public enum Queue {
    OUTBOX("outbox", MessageStatus.DELIVERED),
    INBOX("inbox", MessageStatus.COMPLETED);

    private final String tag;
    private final MessageStatus successStatus;

    Queue(String tag, MessageStatus successStatus) {
        this.tag = tag;
        this.successStatus = successStatus;
    }

    /** The metric tag value: {@code outbox} or {@code inbox}. */
    public String tag() {
        return tag;
    }

    /** The status a {@link Transition.Deliver} writes: {@code DELIVERED} in the outbox, {@code COMPLETED} in the inbox. */
    public MessageStatus successStatus() {
        return successStatus;
    }
}
