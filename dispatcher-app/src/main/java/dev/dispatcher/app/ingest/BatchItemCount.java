package dev.dispatcher.app.ingest;

import org.springframework.core.io.buffer.DataBuffer;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.async.ByteBufferFeeder;
import tools.jackson.core.json.JsonFactory;

/**
 * Counts a batch body's top-level items as its buffers arrive, with Jackson's non-blocking parser under the same
 * {@code StreamReadConstraints} as {@link IngestRequestParser}, so a body holding more than max-batch-size items is
 * refused ({@link IngestRequestParser#tooManyItems}, the parser's own refusal) at the buffer that holds the first item
 * too many, before the rest of the body is read or held: a body of millions of empty objects costs the bytes up to
 * that item, not its whole length. It refuses nothing else: a body that is not an array, or not JSON, or beyond a
 * parsing limit stops the count, and {@link IngestRequestParser#parseBatch} says what is wrong once the body is whole.
 *
 * <p>Not thread-safe: one per body, fed its buffers in order (as a request's body arrives) and {@linkplain #close()
 * closed} when the body ends. Reads each buffer without moving its read position.
 */
final class BatchItemCount {

    private final JsonParser parser;
    private final ByteBufferFeeder feeder;
    private final int maxItems;
    private int depth;
    private int items;
    private boolean stopped;

    BatchItemCount(JsonFactory factory, int maxItems) {
        this.parser = factory.createNonBlockingByteBufferParser(ObjectReadContext.empty());
        this.feeder = (ByteBufferFeeder) parser.nonBlockingInputFeeder();
        this.maxItems = maxItems;
    }

    /**
     * Counts the items that end in {@code buffer}.
     *
     * @throws IngestProblem.TooLarge once the body holds more than max-batch-size items
     */
    void feed(DataBuffer buffer) {
        if (stopped) {
            return;
        }
        try (DataBuffer.ByteBufferIterator chunks = buffer.readableByteBuffers()) {
            while (chunks.hasNext() && !stopped) {
                feeder.feedInput(chunks.next());
                countAvailableTokens();
            }
        } catch (JacksonException notCountable) {
            stop();
        }
    }

    private void countAvailableTokens() {
        JsonToken token;
        while (!stopped && (token = parser.nextToken()) != null && token != JsonToken.NOT_AVAILABLE) {
            if (depth == 0 && token != JsonToken.START_ARRAY) {
                stop();
                return;
            }
            if (depth == 1 && token != JsonToken.END_ARRAY && ++items > maxItems) {
                stop();
                throw IngestRequestParser.tooManyItems(maxItems);
            }
            if (token.isStructStart()) {
                depth++;
            } else if (token.isStructEnd()) {
                depth--;
            }
        }
    }

    /** Stops counting and lets the parser go; idempotent. */
    void close() {
        if (!stopped) {
            stop();
        }
    }

    private void stop() {
        stopped = true;
        parser.close();
    }
}
