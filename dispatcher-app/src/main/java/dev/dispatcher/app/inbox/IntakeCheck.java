package dev.dispatcher.app.inbox;

import dev.dispatcher.app.kafka.ReceivedRecord;
import dev.dispatcher.app.store.InboxRecord;
import dev.dispatcher.domain.MessageHeaders;
import dev.dispatcher.domain.MessageId;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides, for one received record, how the inbox stores it; pure and total (every record gets a verdict, none
 * throws), so no record can stop its partition here.
 *
 * <ul>
 *   <li>{@link Verdict.Text}: stored as received and handled.</li>
 *   <li>{@link Verdict.BinaryKey}: the key is not text (NUL, or not UTF-8: Confluent's wire format starts every key
 *       with 0x00 and a schema id). Stored losslessly, the key's bytes in {@code message_key_bytes}, and handled as
 *       usual.</li>
 *   <li>{@link Verdict.Poison}: a header name with NUL, a header value that is not UTF-8 or holds NUL (neither fits
 *       {@code jsonb} text), a {@code message-id} header that is not a valid id, or a value over the consumer's
 *       limit. Stored {@code DEAD_LETTERED} with the reason as {@code last_error}, keeping the topic, partition,
 *       offset, the key (in either form), the headers that could be stored and the value unless it was over the
 *       limit. Never handled unless an operator replays it.</li>
 * </ul>
 * Every text this puts in a row is valid Unicode without NUL, which PostgreSQL's {@code text} and {@code jsonb}
 * accept; the reason names the offending header with its name escaped.
 *
 * <p>The id: the {@code message-id} header, else a CloudEvent's {@code id} when the record is one
 * ({@link CloudEventAttributes}: binary mode's {@code ce_id} header, or structured mode's JSON {@code id}), else
 * {@link #positionId}. {@code message-id} comes first because the relay writes it itself in every format, while a
 * producer's message can carry a {@code ce_id} header (ingest refuses it now, not every producer writing rows did)
 * or a payload that reads as a structured event: taking those first let one producer choose an id another
 * producer's message has, and make that one a silent duplicate. A {@code message-id} header or CloudEvent whose id
 * is not a valid id (blank, longer than {@value MessageId#MAX_LENGTH} characters) makes the record poison: the
 * sender named an id the inbox cannot deduplicate on.
 * The event type: the {@code event-type} header, else a CloudEvent's {@code type}.
 */
final class IntakeCheck {

    /** Longest reason stored in {@code last_error}. */
    static final int MAX_REASON_LENGTH = 1000;
    /** Longest header name quoted in a reason. */
    private static final int MAX_QUOTED_NAME = 64;

    private IntakeCheck() {
    }

    /** How a record is stored. */
    sealed interface Verdict {

        /** The row to store. */
        InboxRecord row();

        /** Stored as received, to handle. */
        record Text(InboxRecord row) implements Verdict {
        }

        /** Stored losslessly with its key as bytes, to handle. */
        record BinaryKey(InboxRecord row) implements Verdict {
        }

        /** Stored dead-lettered with the reason. */
        record Poison(InboxRecord row) implements Verdict {

            public String reason() {
                return row.deadLetterReason();
            }
        }
    }

    /**
     * The verdict on {@code record} for a consumer whose values may be at most {@code maxPayloadBytes} long.
     * Repeated header names: the last value wins, as it always has.
     */
    static Verdict check(ReceivedRecord record, long maxPayloadBytes) {
        List<String> problems = new ArrayList<>(0);

        String textKey = null;
        byte[] binaryKey = null;
        if (record.key() != null) {
            textKey = text(record.key());
            binaryKey = textKey == null ? record.key().clone() : null;
        }

        Map<String, byte[]> lastValues = new LinkedHashMap<>();
        for (ReceivedRecord.Header h : record.headers()) {
            lastValues.remove(h.name()); // a repeated name takes the place of its last occurrence
            lastValues.put(h.name(), h.value());
        }
        Map<String, String> headers = new LinkedHashMap<>();
        boolean idHeaderPresent = false;
        for (Map.Entry<String, byte[]> h : lastValues.entrySet()) {
            String name = h.getKey();
            if (name.equals(MessageHeaders.MESSAGE_ID)) {
                idHeaderPresent = true;
            }
            if (name.indexOf('\0') >= 0) {
                problems.add("header name " + quoted(name) + " contains NUL");
                continue;
            }
            String value = h.getValue() == null ? "" : text(h.getValue());
            if (value == null) {
                problems.add("header " + quoted(name) + " is not UTF-8 text without NUL (jsonb cannot hold it)");
                continue;
            }
            headers.put(name, value);
        }

        MessageId id = positionId(record.topic(), record.partition(), record.offset());
        CloudEventAttributes event = CloudEventAttributes.of(headers, record.payload()).orElse(null);
        if (idHeaderPresent) {
            String header = headers.get(MessageHeaders.MESSAGE_ID);
            if (header != null && validId(header)) {
                id = MessageId.of(header);
            } else {
                problems.add("the message-id header is not a valid id (1 to " + MessageId.MAX_LENGTH
                        + " characters, not blank)");
            }
        } else if (event != null) {
            if (validId(event.id()) && storable(event.id())) {
                id = MessageId.of(event.id());
            } else {
                problems.add("the CloudEvents id is not a valid id (1 to " + MessageId.MAX_LENGTH
                        + " characters, not blank, without NUL)");
            }
        }
        String eventType = headers.get(MessageHeaders.EVENT_TYPE);
        if (eventType == null && event != null && event.type() != null && storable(event.type())) {
            eventType = event.type();
        }

        byte[] payload = record.payload();
        if (payload.length > maxPayloadBytes) {
            problems.add("value of " + payload.length + " bytes is over the consumer's limit of " + maxPayloadBytes
                    + " bytes (max-payload-size); it was not stored");
            payload = null;
        }

        String reason = problems.isEmpty() ? null : reason(String.join("; ", problems));
        InboxRecord row = new InboxRecord(id, record.topic(), record.partition(), record.offset(), textKey, binaryKey,
                eventType, headers, payload, reason);
        if (reason != null) {
            return new Verdict.Poison(row);
        }
        return binaryKey != null ? new Verdict.BinaryKey(row) : new Verdict.Text(row);
    }

    /**
     * The row to store when the database refused {@code row} with {@code error} (the safety net for a value no check
     * foresaw): dead-lettered with the database's reason, keeping its id, position and raw key (as bytes, which
     * {@code bytea} always takes), without its headers and value.
     */
    static InboxRecord refusedByDatabase(InboxRecord row, String error) {
        return new InboxRecord(row.id(), row.topic(), row.partition(), row.offset(), null, row.rawKey(), null,
                Map.of(), null, reason("the database refused the record (" + error
                        + "); stored without its headers and value"));
    }

    /**
     * The id of a record without a valid {@code message-id}: {@code <topic>-<partition>-<offset>}, stable for
     * redeliveries of this record (not across re-publications). A topic too long for that to fit {@link
     * MessageId#MAX_LENGTH} is cut and followed by a hash of the whole name, so ids stay distinct per topic.
     */
    static MessageId positionId(String topic, int partition, long offset) {
        String position = "-" + partition + "-" + offset;
        if (topic.length() + position.length() <= MessageId.MAX_LENGTH) {
            return MessageId.of(topic + position);
        }
        String hash = "~" + sha256Hex(topic).substring(0, 16);
        return MessageId.of(topic.substring(0, MessageId.MAX_LENGTH - position.length() - hash.length()) + hash
                + position);
    }

    /** Whether {@code value} (text without NUL) is an id the inbox stores. */
    static boolean validId(String value) {
        return !value.isBlank() && value.length() <= MessageId.MAX_LENGTH;
    }

    /**
     * Whether PostgreSQL {@code text} takes {@code value} as it is: no NUL and no lone surrogate (a JSON string's
     * escapes may hold either; header values were decoded from UTF-8, which holds neither).
     */
    static boolean storable(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\0' || Character.isLowSurrogate(c)) {
                return false;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 == value.length() || !Character.isLowSurrogate(value.charAt(i + 1))) {
                    return false;
                }
                i++;
            }
        }
        return true;
    }

    /**
     * {@code bytes} as text, or null when they are not valid UTF-8 or hold NUL. The common case costs one decode:
     * the strict check runs only when the lenient decode had to replace something (or the text holds U+FFFD).
     */
    static String text(byte[] bytes) {
        String decoded = new String(bytes, StandardCharsets.UTF_8);
        if (decoded.indexOf('\0') >= 0) {
            return null;
        }
        if (decoded.indexOf('\uFFFD') >= 0 && !strictUtf8(bytes)) {
            return null;
        }
        return decoded;
    }

    private static boolean strictUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /** {@code text} cut to {@link #MAX_REASON_LENGTH}, with control characters escaped, so it fits {@code text}. */
    static String reason(String text) {
        String printable = printable(text);
        return printable.length() <= MAX_REASON_LENGTH ? printable : cut(printable, MAX_REASON_LENGTH - 3) + "...";
    }

    private static String cut(String text, int length) {
        return text.substring(0, Character.isHighSurrogate(text.charAt(length - 1)) ? length - 1 : length);
    }

    private static String quoted(String name) {
        String shown = printable(name);
        return "'" + (shown.length() <= MAX_QUOTED_NAME ? shown : cut(shown, MAX_QUOTED_NAME) + "...") + "'";
    }

    /** Control characters (NUL among them) as {@code \\uXXXX}; a lone surrogate as U+FFFD. */
    private static String printable(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                out.append(c).append(text.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                out.append('\uFFFD');
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static String sha256Hex(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
