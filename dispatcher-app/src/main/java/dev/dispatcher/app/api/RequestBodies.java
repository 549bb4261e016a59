package dev.dispatcher.app.api;

import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.server.reactive.ServerHttpRequest;
import reactor.core.publisher.Mono;

/**
 * Reads a request body into memory with a byte limit, so an oversize body is refused with {@code 413} before it
 * is buffered whole (by its {@code Content-Length} when declared, else while it streams in).
 */
final class RequestBodies {

    private RequestBodies() {
    }

    static Mono<byte[]> read(ServerHttpRequest request, long limit, String limitDescription) {
        int max = (int) Math.min(limit, Integer.MAX_VALUE - 8);
        long declared = request.getHeaders().getContentLength();
        if (declared > max) {
            return Mono.error(tooLarge(declared, max, limitDescription));
        }
        return DataBufferUtils.join(request.getBody(), max)
                .map(buffer -> {
                    try {
                        byte[] bytes = new byte[buffer.readableByteCount()];
                        buffer.read(bytes);
                        return bytes;
                    } finally {
                        DataBufferUtils.release(buffer);
                    }
                })
                .defaultIfEmpty(new byte[0])
                .onErrorMap(DataBufferLimitException.class, e -> tooLarge(-1, max, limitDescription));
    }

    private static ApiProblem tooLarge(long declared, long max, String limitDescription) {
        return ApiProblem.tooLarge("$", "the request body" + (declared >= 0 ? " (" + declared + " bytes)" : "")
                + " is larger than " + max + " bytes (" + limitDescription + ")");
    }
}
