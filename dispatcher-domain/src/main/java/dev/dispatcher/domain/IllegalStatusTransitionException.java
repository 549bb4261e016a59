package dev.dispatcher.domain;

/** Thrown when a status change is not one of the legal {@link StatusTransition}s. */
public final class IllegalStatusTransitionException extends IllegalStateException {

    private final MessageStatus from;
    private final MessageStatus to;

    public IllegalStatusTransitionException(MessageStatus from, MessageStatus to, StatusTransition.Actor by) {
        super("illegal status transition " + from + " -> " + to + " by " + by);
        this.from = from;
        this.to = to;
    }

    public MessageStatus from() {
        return from;
    }

    public MessageStatus to() {
        return to;
    }
}
