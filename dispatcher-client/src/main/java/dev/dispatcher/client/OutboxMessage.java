package dev.dispatcher.client;

import dev.dispatcher.domain.DeliveryTime;
import dev.dispatcher.domain.MessageHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * One message for the outbox, built with {@link #builder(String, String)}: the Kafka topic, the event type and
 * the payload bytes are required; everything else is optional.
 *
 * <p>Immutable and validated when built, so an instance that exists can be written: topic names follow Kafka's
 * rules (1 to 249 of {@code [a-zA-Z0-9._-]}, not {@code .} or {@code ..}); header names are unique, none is one
 * the relay writes itself ({@link MessageHeaders#isReserved}), and neither header names nor values contain NUL
 * (PostgreSQL text cannot hold it); at most one of {@code deliverAt} and
 * {@code delay} is set. The payload array is copied. Whether a delivery time lies within the allowed window
 * (not more than {@link DeliveryTime#MAX_PAST_SKEW} in the past, at most the writer's maximum delay ahead) is
 * checked by the writer when it writes, against its clock.
 */
public final class OutboxMessage {

    /** The content type stored when none is set. */
    public static final String DEFAULT_CONTENT_TYPE = "application/json";

    private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    private final UUID id;
    private final String topic;
    private final String key;
    private final String type;
    private final byte[] payload;
    private final String contentType;
    private final Map<String, String> headers;
    private final String correlationId;
    private final String causationId;
    private final DeliveryTime deliveryTime;

    private OutboxMessage(Builder b, DeliveryTime deliveryTime) {
        this.id = b.id;
        this.topic = b.topic;
        this.key = b.key;
        this.type = b.type;
        this.payload = b.payload.clone();
        this.contentType = b.contentType;
        this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(b.headers));
        this.correlationId = b.correlationId;
        this.causationId = b.causationId;
        this.deliveryTime = deliveryTime;
    }

    /**
     * A builder for a message to {@code topic} of event type {@code type}.
     *
     * @throws IllegalArgumentException when the topic is not a legal Kafka topic name or the type is blank
     */
    public static Builder builder(String topic, String type) {
        return new Builder(topic, type);
    }

    /** The message id chosen by the caller, or {@code null} to let the database generate one. */
    public UUID id() {
        return id;
    }

    public String topic() {
        return topic;
    }

    /** The Kafka key and ordering key, or {@code null} (unordered). */
    public String key() {
        return key;
    }

    public String type() {
        return type;
    }

    /** A copy of the payload bytes. */
    public byte[] payload() {
        return payload.clone();
    }

    byte[] payloadUnsafe() {
        return payload;
    }

    public String contentType() {
        return contentType;
    }

    /** Extra Kafka headers, in insertion order; unmodifiable. */
    public Map<String, String> headers() {
        return headers;
    }

    public String correlationId() {
        return correlationId;
    }

    public String causationId() {
        return causationId;
    }

    /** When the message may be published first: immediately, at an instant, or after a delay. */
    public DeliveryTime deliveryTime() {
        return deliveryTime;
    }

    @Override
    public String toString() {
        return "OutboxMessage[id=" + id + ", topic=" + topic + ", key=" + key + ", type=" + type + ", payload="
                + payload.length + " bytes, contentType=" + contentType + ", deliveryTime=" + deliveryTime + "]";
    }

    /** Builds an {@link OutboxMessage}; not thread-safe. */
    public static final class Builder {

        private UUID id;
        private final String topic;
        private String key;
        private final String type;
        private byte[] payload;
        private String contentType = DEFAULT_CONTENT_TYPE;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private String correlationId;
        private String causationId;
        private Instant deliverAt;
        private Duration delay;

        private Builder(String topic, String type) {
            if (topic == null || !TOPIC.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
                throw new IllegalArgumentException("topic must be 1 to 249 of [a-zA-Z0-9._-] and not '.' or '..',"
                        + " but was " + (topic == null ? "null" : "'" + topic + "'"));
            }
            this.topic = topic;
            this.type = requireText("type", type);
        }

        /** Sets the message id (idempotency and the Kafka {@code message-id} header); generated when not set. */
        public Builder id(UUID id) {
            this.id = id;
            return this;
        }

        /** Sets the Kafka key, which is also the ordering key; {@code null} for none. */
        public Builder key(String key) {
            this.key = key == null ? null : requireText("key", key);
            return this;
        }

        /** Sets the payload bytes (required). */
        public Builder payload(byte[] payload) {
            this.payload = Objects.requireNonNull(payload, "payload").clone();
            return this;
        }

        /** Sets the payload as the UTF-8 bytes of {@code json}, with content type {@code application/json}. */
        public Builder jsonPayload(String json) {
            this.payload = Objects.requireNonNull(json, "payload").getBytes(StandardCharsets.UTF_8);
            this.contentType = DEFAULT_CONTENT_TYPE;
            return this;
        }

        /** Sets the content type (default {@value #DEFAULT_CONTENT_TYPE}). */
        public Builder contentType(String contentType) {
            this.contentType = requireText("contentType", contentType);
            return this;
        }

        /**
         * Adds a Kafka header; a name set twice keeps the last value.
         *
         * @throws IllegalArgumentException when the name is blank or one the relay writes itself
         *     ({@link MessageHeaders#isReserved}: {@code message-id}, {@code event-type}, {@code content-type},
         *     {@code correlation-id}, {@code causation-id}, or starting {@code ce_} or {@code dispatcher-}, in any
         *     case), as the service's ingest refuses it: set the message's own fields instead
         */
        public Builder header(String name, String value) {
            requireText("header name", name);
            if (MessageHeaders.isReserved(name)) {
                throw new IllegalArgumentException("header '" + name + "' is reserved: the relay writes "
                        + String.join(", ", MessageHeaders.RESERVED) + " and every header starting "
                        + String.join(" or ", MessageHeaders.RESERVED_PREFIXES) + " itself (in any case)");
            }
            headers.put(name, requireNoNul("header " + name, Objects.requireNonNull(value, "header " + name)));
            return this;
        }

        public Builder correlationId(String correlationId) {
            this.correlationId = correlationId == null ? null : requireText("correlationId", correlationId);
            return this;
        }

        public Builder causationId(String causationId) {
            this.causationId = causationId == null ? null : requireText("causationId", causationId);
            return this;
        }

        /**
         * Publishes the message not before {@code deliverAt} (not together with {@link #delay}); {@code null} for
         * as soon as it commits. A key's later messages wait for it: a delayed message holds back its key.
         */
        public Builder deliverAt(Instant deliverAt) {
            this.deliverAt = deliverAt;
            return this;
        }

        /**
         * Publishes the message not before {@code delay} has passed since the write (not together with {@link
         * #deliverAt}); {@code null} for as soon as it commits. A key's later messages wait for it.
         */
        public Builder delay(Duration delay) {
            this.delay = delay;
            return this;
        }

        /**
         * The message.
         *
         * @throws IllegalStateException when no payload was set
         * @throws IllegalArgumentException when both {@code deliverAt} and {@code delay} are set
         */
        public OutboxMessage build() {
            if (payload == null) {
                throw new IllegalStateException("payload must be set");
            }
            return new OutboxMessage(this, DeliveryTime.of(deliverAt, delay));
        }

        private static String requireText(String what, String value) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException(what + " must not be blank");
            }
            return requireNoNul(what, value);
        }

        private static String requireNoNul(String what, String value) {
            if (value.indexOf('\0') >= 0) {
                throw new IllegalArgumentException(what + " must not contain NUL characters");
            }
            return value;
        }
    }
}
