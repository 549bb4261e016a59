package dev.dispatcher.app.api;

import dev.dispatcher.app.observe.MessageTracing;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.HttpHandlerDecoratorFactory;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import reactor.core.publisher.Mono;

/**
 * The public health answers ({@code GET /actuator/health}, {@code .../liveness}, {@code .../readiness} without
 * credentials) replayed around the framework: the framework renders each answer (its status, headers and body,
 * Spring Security's headers included) and that answer, recorded as it is written, is written again to every same
 * request within {@link #RENDERED_FOR}. So a flood of public health calls costs a cache lookup and a write per call,
 * not WebFlux's dispatch, the security chain and actuator's composite health and JSON rendering; the components'
 * checks themselves are cached apart ({@code config.CachedHealthIndicator}).
 *
 * <p>What it takes: a {@code GET} of one of those three paths (within the context path) with no query, an
 * {@code Accept} that is absent or one of {@link #ACCEPTS} (the answer is recorded per path and {@code Accept}), no
 * {@code Authorization} and no {@code Cookie} (a signed-in caller may see details: an OPERATOR's answer is never
 * recorded nor replayed), no forwarding headers (the client address is then the proxy's choice) and no trace
 * context; anything else goes to the framework untouched. Only a {@code 200} or {@code 503} answer (a {@code 429} to
 * a refused call) without {@code Set-Cookie} is recorded. Used only while roots are never sampled, as {@link IngestFastPath}.
 *
 * <p>{@link HealthCallLimit} stays in front: a call answered from a recorded answer takes its client's turn here
 * first (waiting for it as the filter would). A call the limit refuses (or, with no fresh recorded answer, would
 * refuse) is answered, after the filter's {@link HealthCallLimit#WAIT}, with the framework's {@code 429} recorded the
 * same way (per path and {@code Accept}), so a flooding client's refusals cost a timer and a write, not the
 * framework's dispatch and a problem's rendering; other calls go to the framework, whose {@link HealthCallLimit}
 * filter decides and answers them (a refused call takes no turn, so no call is counted twice). Replayed answers are not recorded in {@code http.server.requests}. Thread-safe.
 */
public final class HealthFastPath implements HttpHandlerDecoratorFactory {

    /** How long a recorded answer is replayed before the next call renders it again. */
    public static final Duration RENDERED_FOR = Duration.ofMillis(500);
    static final Set<String> PATHS =
            Set.of("/actuator/health", "/actuator/health/liveness", "/actuator/health/readiness");
    /** Before a request's key, the key of the refusal ({@code 429}) recorded for it. */
    static final String REFUSED_PREFIX = "429 ";
    /** How long a recorded refusal is replayed: its text never changes, only a deployment changes it. */
    static final Duration REFUSAL_RENDERED_FOR = Duration.ofMinutes(1);
    /** The {@code Accept} values (besides none) whose answers are recorded: what probes and scripts send. */
    static final Set<String> ACCEPTS =
            Set.of("*/*", "application/json", "application/vnd.spring-boot.actuator.v3+json");
    private static final List<String> CALLER_HEADERS = List.of(HttpHeaders.AUTHORIZATION, HttpHeaders.COOKIE,
            "Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Forwarded-Prefix");

    private static final List<String> HOP_BY_HOP =
            List.of(HttpHeaders.CONNECTION, "Keep-Alive", HttpHeaders.TRANSFER_ENCODING);

    private final boolean enabled;
    private final HealthCallLimit limit;
    private final MessageTracing tracing;
    private final LongSupplier nanoTime;
    /** Per path and {@code Accept}, the latest recorded answer. */
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    /** Calls answered with a recorded answer. */
    private final LongAdder replayed = new LongAdder();
    /** Of those, refused calls answered with a recorded refusal. */
    private final LongAdder refusalsReplayed = new LongAdder();

    HealthFastPath(boolean enabled, HealthCallLimit limit, MessageTracing tracing) {
        this(enabled, limit, tracing, System::nanoTime);
    }

    HealthFastPath(boolean enabled, HealthCallLimit limit, MessageTracing tracing, LongSupplier nanoTime) {
        this.enabled = enabled && !tracing.rootsSampled();
        this.limit = limit;
        this.tracing = tracing;
        this.nanoTime = nanoTime;
    }

    /** An answer as the framework wrote it. */
    private record Answer(HttpStatusCode status, HttpHeaders headers, byte[] body, long renderedAt) {
    }

    @Override
    public HttpHandler apply(HttpHandler next) {
        if (!enabled) {
            return next;
        }
        return (request, response) -> {
            String key = keyIfTaken(request);
            if (key == null) {
                return next.handle(request, response);
            }
            String client = LoginThrottle.clientKey(request.getRemoteAddress());
            // the answer only once the request has been read to its end: answered before the request's last part
            // arrived, a kept-alive connection was seen to hang on its next request (Reactor Netty)
            Mono<Void> read = request.getBody().doOnNext(DataBufferUtils::release).then();
            Answer refusal = fresh(REFUSED_PREFIX + key, REFUSAL_RENDERED_FOR);
            Answer answer = fresh(key);
            if (answer == null) {
                return refusal != null && limit.refuses(client) ? refuse(read, refusal, response)
                        : next.handle(request, new Recording(response, key));
            }
            long wait = limit.turn(client);
            if (wait == HealthCallLimit.REFUSED) {
                return refusal != null ? refuse(read, refusal, response)
                        : next.handle(request, new Recording(response, key));
            }
            if (wait == 0) {
                return read.then(Mono.defer(() -> write(answer, response)));
            }
            return read.then(Mono.delay(Duration.ofNanos(wait))).then(Mono.defer(() -> {
                Answer latest = fresh(key);
                return write(latest != null ? latest : answer, response);
            }));
        };
    }

    /** The request's path and {@code Accept} when this path takes the request; null if not. Reads headers only. */
    String keyIfTaken(ServerHttpRequest request) {
        if (request.getMethod() != HttpMethod.GET || request.getURI().getRawQuery() != null) {
            return null;
        }
        String path = request.getPath().pathWithinApplication().value();
        if (!PATHS.contains(path)) {
            return null;
        }
        HttpHeaders headers = request.getHeaders();
        for (String header : CALLER_HEADERS) {
            if (headers.containsHeader(header)) {
                return null;
            }
        }
        if (tracing.carriesContext(headers::containsHeader)) {
            return null;
        }
        List<String> accept = headers.getOrEmpty(HttpHeaders.ACCEPT);
        if (accept.isEmpty()) {
            return path;
        }
        return accept.size() == 1 && ACCEPTS.contains(accept.get(0)) ? path + " " + accept.get(0) : null;
    }

    private Answer fresh(String key) {
        return fresh(key, RENDERED_FOR);
    }

    private Answer fresh(String key, Duration renderedFor) {
        Answer answer = answers.get(key);
        return answer != null && nanoTime.getAsLong() - answer.renderedAt() < renderedFor.toNanos() ? answer : null;
    }

    /** How many calls were answered with a recorded answer (counted before the answer is written). */
    public long replayed() {
        return replayed.sum();
    }

    /**
     * {@code refusal} after the wait the filter keeps too ({@link HealthCallLimit#WAIT}), so a flooding connection
     * still gets one answer a second.
     */
    private Mono<Void> refuse(Mono<Void> read, Answer refusal, ServerHttpResponse response) {
        return read.then(Mono.delay(HealthCallLimit.WAIT)).then(Mono.defer(() -> {
            refusalsReplayed.increment();
            return write(refusal, response);
        }));
    }

    /** How many refused calls were answered with a recorded refusal (counted in {@link #replayed} too). */
    public long refusalsReplayed() {
        return refusalsReplayed.sum();
    }

    private Mono<Void> write(Answer answer, ServerHttpResponse response) {
        replayed.increment();
        response.setStatusCode(answer.status());
        response.getHeaders().putAll(answer.headers());
        return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(answer.body())));
    }

    /** Records the framework's answer to a taken request as it is written, then writes it on. */
    private final class Recording extends ServerHttpResponseDecorator {

        private final String key;

        Recording(ServerHttpResponse delegate, String key) {
            super(delegate);
            this.key = key;
        }

        @Override
        public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
            return DataBufferUtils.join(body).flatMap(joined -> {
                byte[] bytes = new byte[joined.readableByteCount()];
                joined.read(bytes);
                DataBufferUtils.release(joined);
                return super.writeWith(Mono.fromSupplier(() -> bufferFactory().wrap(bytes)))
                        .doOnSuccess(done -> record(bytes));
            }).switchIfEmpty(Mono.defer(() -> super.writeWith(Mono.empty())));
        }

        private void record(byte[] body) {
            HttpStatusCode status = getStatusCode();
            HttpHeaders headers = getHeaders();
            if (status == null || headers.containsHeader(HttpHeaders.SET_COOKIE)) {
                return;
            }
            String recordedAs;
            if (status.value() == HttpStatus.OK.value() || status.value() == HttpStatus.SERVICE_UNAVAILABLE.value()) {
                recordedAs = key;
            } else if (status.value() == HttpStatus.TOO_MANY_REQUESTS.value()) {
                recordedAs = REFUSED_PREFIX + key;
            } else {
                return;
            }
            HttpHeaders recorded = HttpHeaders.copyOf(headers);
            HOP_BY_HOP.forEach(recorded::remove); // the connection's, not the answer's
            answers.put(recordedAs,
                    new Answer(status, HttpHeaders.readOnlyHttpHeaders(recorded), body, nanoTime.getAsLong()));
        }
    }
}
