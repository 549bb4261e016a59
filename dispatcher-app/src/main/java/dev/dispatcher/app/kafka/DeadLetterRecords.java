package dev.dispatcher.app.kafka;

import dev.dispatcher.domain.MessageHeaders;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The record a dead-lettered message is published as on its dead-letter topic ({@link DeadLetterTopic}): the
 * message's own value, key and headers, plus {@link MessageHeaders#DEAD_LETTER_REASON}, {@link
 * MessageHeaders#DEAD_LETTER_ATTEMPTS} and {@link MessageHeaders#DEAD_LETTER_ORIGINAL_TOPIC}, which replace headers
 * of the same names (a message dead-lettered twice carries the latest). Pure.
 */
public final class DeadLetterRecords {

    private DeadLetterRecords() {
    }

    /**
     * A dead-lettered message of {@code topic}, as its dead-letter record.
     *
     * @param deadLetters where it goes
     * @param topic the message's topic (where it came from, or was meant for)
     * @param key its text key, or null
     * @param keyBytes its key's bytes when the key is not text (then {@code key} is null): the record goes without a
     *     key, and the bytes in base64 in {@link MessageHeaders#DEAD_LETTER_ORIGINAL_KEY_BASE64} (records are
     *     published with text keys)
     * @param value its value
     * @param headers its headers, in order
     * @param reason why it was dead-lettered
     * @param attempts the attempts spent on it
     */
    public static OutboundRecord of(DeadLetterTopic deadLetters, String topic, String key, byte[] keyBytes,
            byte[] value, Map<String, String> headers, String reason, int attempts) {
        Objects.requireNonNull(reason, "reason");
        Map<String, String> all = new LinkedHashMap<>(headers);
        all.remove(MessageHeaders.DEAD_LETTER_ORIGINAL_KEY_BASE64);
        all.put(MessageHeaders.DEAD_LETTER_REASON, reason);
        all.put(MessageHeaders.DEAD_LETTER_ATTEMPTS, Integer.toString(attempts));
        all.put(MessageHeaders.DEAD_LETTER_ORIGINAL_TOPIC, topic);
        if (key == null && keyBytes != null) {
            all.put(MessageHeaders.DEAD_LETTER_ORIGINAL_KEY_BASE64, Base64.getEncoder().encodeToString(keyBytes));
        }
        return new OutboundRecord(deadLetters.resolve(topic), key, value, all);
    }
}
