package dev.dispatcher.app.ingest;

import dev.dispatcher.app.store.IngestMessage;
import dev.dispatcher.domain.DeliveryTime;
import java.io.ByteArrayOutputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamWriteException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads ingest bodies into {@link IngestMessage}s: the JSON as a stream, each message's fields as small nodes and its
 * payload copied as read, then each item checked by {@link IngestMessageRules}; fails with an {@link IngestProblem}
 * that names the field ({@code topic}, or {@code [2].headers.x-id} in a batch). Stateless and thread-safe; pure CPU
 * work, bounded by the body, which is whole in memory (at most its limit, counted in {@link IngestBudget}) when
 * parsing starts.
 *
 * <p>Strict JSON: trailing tokens after the value, duplicate object keys and unknown fields are rejected; nesting
 * deeper than {@value #MAX_NESTING_DEPTH} and strings longer than a payload can be are refused ({@link
 * IngestProblem.TooLarge}) as they are read, so a hostile body costs no more than its bytes.
 *
 * <p>Where it runs: the body is parsed in one go once it has arrived whole; only a batch's items are counted buffer
 * by buffer as it arrives ({@link BatchItemCount}), so a batch of too many items is refused before the rest of it is
 * read. {@link Ingest} parses a body on the event loop that read it (about half a millisecond for 64 KiB, a tenth of
 * a second or more for an 8 MiB batch at the limit).
 */
final class IngestRequestParser {

    /** Room left in the producer's {@code max.request.size} for everything beside the payload. */
    static final long RECORD_OVERHEAD_MARGIN = 32 * 1024;
    private static final Set<String> FIELDS = Set.of("id", "topic", "key", "type", "payload", "contentType",
            "headers", "correlationId", "causationId", DeliveryTime.DELIVER_AT, DeliveryTime.DELAY);

    static final JsonMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /** Deepest nesting a body may have (objects and arrays, the payload's included). */
    static final int MAX_NESTING_DEPTH = 500;
    /** Least bound on one string's length, whatever the payload limit: keys, header values and names fit it. */
    static final int MIN_MAX_STRING_LENGTH = 64 * 1024;

    private final int maxBatchSize;
    private final IngestMessageRules rules;
    /** The most bytes a payload's JSON may take as read: a base64 string of a payload at the limit, quoted. */
    private final long maxPayloadJsonBytes;
    /** {@link #JSON} with {@link StreamReadConstraints} derived from the limits. */
    private final JsonMapper reader;

    IngestRequestParser(long maxPayloadBytes, int maxBatchSize, Duration maxDelay, Clock clock) {
        this.maxBatchSize = maxBatchSize;
        this.rules = new IngestMessageRules(maxPayloadBytes, maxDelay, clock);
        this.maxPayloadJsonBytes = 4 * ((maxPayloadBytes + 2) / 3) + 2;
        this.reader = JsonMapper.builder(JsonFactory.builder().streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(MAX_NESTING_DEPTH)
                        .maxStringLength((int) Math.min(Integer.MAX_VALUE,
                                Math.max(MIN_MAX_STRING_LENGTH, maxPayloadJsonBytes)))
                        .build()).build())
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .build();
    }

    /** One message from {@code POST /v1/messages}. */
    IngestMessage parseOne(byte[] body) {
        return rules.message(read(body, p -> item(p, "")), "");
    }

    /** A counter of a batch body's items as it arrives, refusing past max-batch-size as {@link #parseBatch} does. */
    BatchItemCount batchItemCount() {
        return new BatchItemCount((JsonFactory) reader.tokenStreamFactory(), maxBatchSize);
    }

    /** The refusal of a batch of more than {@code maxBatchSize} items. */
    static IngestProblem.TooLarge tooManyItems(int maxBatchSize) {
        return new IngestProblem.TooLarge("$", "the batch holds more than dispatcher.ingest.max-batch-size ("
                + maxBatchSize + ") messages");
    }

    /**
     * The items of {@code POST /v1/messages/batch}: a non-empty JSON array of at most max-batch-size messages. Read as
     * a stream: the array's items are counted as they come, and one past max-batch-size refuses the batch at once,
     * before the rest is read; an item's payload is copied as it is read into a buffer bounded by the payload limit
     * (no tree of it is built), its other fields kept as small nodes.
     */
    List<IngestMessage> parseBatch(byte[] body) {
        List<RawItem> items = read(body, p -> {
            if (p.currentToken() != JsonToken.START_ARRAY) {
                throw new IngestProblem.Invalid("$", "the body must be a JSON array of messages, but was "
                        + kindOf(p));
            }
            List<RawItem> read = new ArrayList<>();
            while (p.nextToken() != JsonToken.END_ARRAY) {
                if (read.size() == maxBatchSize) {
                    throw tooManyItems(maxBatchSize);
                }
                read.add(item(p, "[" + read.size() + "]."));
            }
            return read;
        });
        if (items.isEmpty()) {
            throw new IngestProblem.Invalid("$", "the batch must hold at least one message");
        }
        List<IngestMessage> messages = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            messages.add(rules.message(items.get(i), "[" + i + "]."));
        }
        return messages;
    }

    /** A message as read, not yet checked: its fields but the payload, its payload's JSON, or what it was instead. */
    record RawItem(ObjectNode fields, byte[] payload, String unknownField, String notAnObject) {
    }

    /** Reads {@code body}'s one JSON value with {@code reading} (at its first token), refusing trailing tokens. */
    private <T> T read(byte[] body, Function<JsonParser, T> reading) {
        if (body.length == 0) {
            throw new IngestProblem.Malformed("the request body is empty; a JSON document is required");
        }
        try (JsonParser p = reader.createParser(body)) {
            if (p.nextToken() == null) {
                throw new IngestProblem.Malformed("the request body holds no JSON value");
            }
            T value = reading.apply(p);
            if (p.nextToken() != null) {
                throw new IngestProblem.Malformed("the request body is not valid JSON: trailing token ("
                        + p.currentToken() + ") after the value");
            }
            return value;
        } catch (StreamConstraintsException e) {
            throw new IngestProblem.TooLarge("$", "the request body is beyond a parsing limit: "
                    + e.getOriginalMessage());
        } catch (JacksonException e) {
            throw new IngestProblem.Malformed("the request body is not valid JSON: " + e.getOriginalMessage());
        }
    }

    /** Reads the value at the parser's current token as a message, its payload copied as it is read. */
    private RawItem item(JsonParser p, String at) {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            return new RawItem(null, null, null, kindOf(p));
        }
        ObjectNode fields = JSON.createObjectNode();
        byte[] payload = null;
        String unknown = null;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = p.currentName();
            p.nextToken();
            if (!FIELDS.contains(name)) {
                unknown = unknown == null ? name : unknown;
                p.skipChildren();
            } else if (name.equals("payload")) {
                payload = copy(p, at);
            } else if (name.equals("headers")) {
                fields.set(name, headerNodes(p, at));
            } else {
                fields.set(name, shallow(p));
            }
        }
        return new RawItem(fields, payload, unknown, null);
    }

    /** The value at the parser's current token, copied as compact JSON; more than the payload can take refuses it. */
    private byte[] copy(JsonParser p, String at) {
        BoundedBytes out = new BoundedBytes(maxPayloadJsonBytes, at);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.copyCurrentStructureExact(p); // numbers as written: the bytes a tree of BigDecimals gave
        } catch (StreamWriteException e) {
            // e.g. a string with an unpaired surrogate escape, which has no UTF-8 form
            throw new IngestProblem.Invalid(at + "payload", "payload cannot be stored as UTF-8 JSON: "
                    + e.getOriginalMessage());
        }
        return out.toByteArray();
    }

    /** The headers object with at most {@link IngestMessageRules#MAX_HEADERS} shallow values, or what stood in its place. */
    private static JsonNode headerNodes(JsonParser p, String at) {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            return shallow(p);
        }
        ObjectNode headers = JSON.createObjectNode();
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = p.currentName();
            p.nextToken();
            if (headers.size() == IngestMessageRules.MAX_HEADERS) {
                throw new IngestProblem.Invalid(at + "headers", "at most " + IngestMessageRules.MAX_HEADERS
                        + " headers are allowed, but"
                        + " there were more");
            }
            headers.set(name, shallow(p));
        }
        return headers;
    }

    /** A scalar as a node; an object or array skipped, an empty one standing for it (its kind is all a check reads). */
    private static JsonNode shallow(JsonParser p) {
        return switch (p.currentToken()) {
            case START_OBJECT -> {
                p.skipChildren();
                yield JSON.createObjectNode();
            }
            case START_ARRAY -> {
                p.skipChildren();
                yield JSON.createArrayNode();
            }
            case VALUE_STRING -> JSON.getNodeFactory().stringNode(p.getString());
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> JSON.getNodeFactory().numberNode(p.getDecimalValue());
            case VALUE_TRUE, VALUE_FALSE -> JSON.getNodeFactory().booleanNode(p.getBooleanValue());
            default -> JSON.getNodeFactory().nullNode();
        };
    }

    /** The kind of the value at the parser's current token (skipped when a container), as {@link IngestMessageRules#kind}
     * names it. */
    private static String kindOf(JsonParser p) {
        return IngestMessageRules.kind(shallow(p));
    }

    /** Bytes up to a bound; one more refuses the payload being copied ({@code 413}). Not thread-safe. */
    private static final class BoundedBytes extends ByteArrayOutputStream {

        private final long bound;
        private final String at;

        BoundedBytes(long bound, String at) {
            this.bound = bound;
            this.at = at;
        }

        @Override
        public void write(int b) {
            require(1);
            super.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            require(len);
            super.write(b, off, len);
        }

        private void require(int more) {
            if (count + (long) more > bound) {
                throw new IngestProblem.TooLarge(at + "payload", "payload takes more than " + bound + " bytes of JSON,"
                        + " more than any payload within dispatcher.ingest.max-payload-size can");
            }
        }
    }
}
