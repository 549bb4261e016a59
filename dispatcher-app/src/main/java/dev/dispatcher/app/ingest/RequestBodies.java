package dev.dispatcher.app.ingest;

import java.time.Duration;
import java.util.function.Consumer;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Reads a request body into memory with a byte limit, so an oversize body is refused ({@link IngestProblem.TooLarge})
 * before it is buffered whole: by its declared length when there is one, else while it streams in. An ingest body's
 * bytes are added to its {@link IngestBudget.Reservation} as they arrive, and the body must arrive whole within its
 * deadline ({@link IngestProblem.BodyTimeout}).
 */
public final class RequestBodies {

    private RequestBodies() {
    }

    /**
     * @param declared the body's declared length ({@code Content-Length}), or -1 when unknown
     */
    static Mono<byte[]> read(Flux<DataBuffer> body, long declared, long limit, String limitDescription) {
        int max = (int) Math.min(limit, Integer.MAX_VALUE - 8);
        if (declared > max) {
            return Mono.error(tooLarge(declared, max, limitDescription));
        }
        return join(body, max)
                .onErrorMap(DataBufferLimitException.class, e -> tooLarge(-1, max, limitDescription));
    }

    /**
     * An ingest body: as {@link #read(Flux, long, long, String)}, each buffer added to {@code reservation} before it
     * is kept (refused with {@link IngestProblem.Overloaded} when the budget has no room for it), the whole within
     * {@code timeout} ({@link IngestProblem.BodyTimeout}, {@code dispatcher.ingest.body-timeout}).
     */
    static Mono<byte[]> read(Flux<DataBuffer> body, long declared, long limit, String limitDescription,
            IngestBudget.Reservation reservation, Duration timeout) {
        Flux<DataBuffer> counted = inspected(body, buffer -> reservation.grow(buffer.readableByteCount()));
        return read(counted, declared, limit, limitDescription)
                .timeout(timeout, Mono.error(() -> new IngestProblem.BodyTimeout("the request body did not arrive"
                        + " whole within " + timeout.toMillis() + " ms (dispatcher.ingest.body-timeout); nothing was"
                        + " written, send it again faster")));
    }

    /**
     * {@code body} with each buffer handed to {@code inspect} as it arrives; a buffer {@code inspect} refuses (throws)
     * is released and the refusal ends the body.
     */
    static Flux<DataBuffer> inspected(Flux<DataBuffer> body, Consumer<DataBuffer> inspect) {
        return body.map(buffer -> {
            try {
                inspect.accept(buffer);
            } catch (RuntimeException refused) {
                DataBufferUtils.release(buffer);
                throw refused;
            }
            return buffer;
        });
    }

    /**
     * A request body as bytes (empty for none), each buffer released once copied; fails with {@link
     * DataBufferLimitException} past {@code max} bytes, without holding more than that.
     */
    public static Mono<byte[]> join(Flux<DataBuffer> body, int max) {
        return DataBufferUtils.join(body, max)
                .map(buffer -> {
                    try {
                        byte[] bytes = new byte[buffer.readableByteCount()];
                        buffer.read(bytes);
                        return bytes;
                    } finally {
                        DataBufferUtils.release(buffer);
                    }
                })
                .defaultIfEmpty(new byte[0]);
    }

    private static IngestProblem tooLarge(long declared, long max, String limitDescription) {
        return new IngestProblem.TooLarge("$", "the request body" + (declared >= 0 ? " (" + declared + " bytes)" : "")
                + " is larger than " + max + " bytes (" + limitDescription + ")");
    }
}
