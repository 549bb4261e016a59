package dev.dispatcher.domain;

import java.util.Objects;
import java.util.UUID;

/**
 * Stable identity of a message: the outbox row's UUID (also the Kafka {@code message-id} header), or the inbox's
 * text id taken from that header.
 *
 * @param value the id as text, never blank, at most {@value #MAX_LENGTH} characters
 */
public record MessageId(String value) implements Comparable<MessageId> {

    /** Longest id the inbox accepts. */
    public static final int MAX_LENGTH = 255;

    public MessageId {
        Objects.requireNonNull(value, "message id");
        if (value.isBlank() || value.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "message id must be 1 to " + MAX_LENGTH + " non-blank characters, but was '" + value + "'");
        }
    }

    public static MessageId of(UUID id) {
        return new MessageId(Objects.requireNonNull(id, "message id").toString());
    }

    public static MessageId of(String id) {
        return new MessageId(id);
    }

    /**
     * The id as a UUID, as the outbox stores it.
     *
     * @throws IllegalArgumentException when the id is not a UUID
     */
    public UUID asUuid() {
        return UUID.fromString(value);
    }

    @Override
    public int compareTo(MessageId other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
