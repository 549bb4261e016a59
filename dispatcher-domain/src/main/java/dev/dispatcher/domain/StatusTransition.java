package dev.dispatcher.domain;

import java.util.Arrays;
import java.util.Optional;

/**
 * Every legal change of {@link MessageStatus}, in one place.
 *
 * <p>Lease transitions ({@link Actor#WORKER}) only move between live statuses or from a live status to a terminal
 * one; nothing a worker does leaves a terminal status. Operators ({@link Actor#OPERATOR}) may replay a terminal
 * message back to {@code PENDING} or dead-letter a live one by hand. Anything not listed is illegal.
 */
public enum StatusTransition {
    PENDING_TO_PENDING(MessageStatus.PENDING, MessageStatus.PENDING, Actor.WORKER),
    PENDING_TO_RETRY(MessageStatus.PENDING, MessageStatus.RETRY_SCHEDULED, Actor.WORKER),
    PENDING_TO_DELIVERED(MessageStatus.PENDING, MessageStatus.DELIVERED, Actor.WORKER),
    PENDING_TO_COMPLETED(MessageStatus.PENDING, MessageStatus.COMPLETED, Actor.WORKER),
    PENDING_TO_DEAD_LETTERED(MessageStatus.PENDING, MessageStatus.DEAD_LETTERED, Actor.WORKER),
    RETRY_TO_RETRY(MessageStatus.RETRY_SCHEDULED, MessageStatus.RETRY_SCHEDULED, Actor.WORKER),
    RETRY_TO_DELIVERED(MessageStatus.RETRY_SCHEDULED, MessageStatus.DELIVERED, Actor.WORKER),
    RETRY_TO_COMPLETED(MessageStatus.RETRY_SCHEDULED, MessageStatus.COMPLETED, Actor.WORKER),
    RETRY_TO_DEAD_LETTERED(MessageStatus.RETRY_SCHEDULED, MessageStatus.DEAD_LETTERED, Actor.WORKER),
    REPLAY(null, MessageStatus.PENDING, Actor.OPERATOR),
    MANUAL_DEAD_LETTER(null, MessageStatus.DEAD_LETTERED, Actor.OPERATOR);

    /** Who may make a transition. */
    public enum Actor { WORKER, OPERATOR }

    private final MessageStatus from;
    private final MessageStatus to;
    private final Actor actor;

    StatusTransition(MessageStatus from, MessageStatus to, Actor actor) {
        this.from = from;
        this.to = to;
        this.actor = actor;
    }

    /** The status this transition ends in. */
    public MessageStatus to() {
        return to;
    }

    /** Who may make this transition. */
    public Actor actor() {
        return actor;
    }

    private boolean matches(MessageStatus source, MessageStatus target, Actor by) {
        if (actor != by || to != target) {
            return false;
        }
        return switch (this) {
            // Replay takes a finished message (delivered, completed or dead-lettered) back to the start.
            case REPLAY -> source.isTerminal();
            // A manual dead letter stops a message that is still live.
            case MANUAL_DEAD_LETTER -> source.isLeasable();
            default -> from == source;
        };
    }

    /** The legal transition from {@code source} to {@code target} made by {@code by}, if there is one. */
    public static Optional<StatusTransition> find(MessageStatus source, MessageStatus target, Actor by) {
        return Arrays.stream(values()).filter(t -> t.matches(source, target, by)).findFirst();
    }

    /**
     * The legal transition from {@code source} to {@code target}.
     *
     * @throws IllegalStatusTransitionException when no such transition is listed
     */
    public static StatusTransition require(MessageStatus source, MessageStatus target, Actor by) {
        return find(source, target, by).orElseThrow(() -> new IllegalStatusTransitionException(source, target, by));
    }
}
