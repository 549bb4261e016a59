package dev.dispatcher.app.api;

import dev.dispatcher.app.ingest.Ingest;
import dev.dispatcher.app.observe.MessageTracing;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.HttpHandlerDecoratorFactory;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import reactor.core.publisher.Mono;

/**
 * The common case of single-message ingest, {@code POST /v1/messages} by an API token holder, answered around the
 * framework: without WebFlux's dispatch, Spring Security's filter chain and Spring's HTTP server observation (what
 * that saves: docs/measurements.md, "The single-message fast path").
 *
 * <p>What it takes: the exact path (within the context path), a JSON {@code Content-Type}, an {@code Accept} that
 * is absent or plain JSON, no trace context the propagator would read, and a Bearer API token
 * ({@link ApiTokenAuthenticationManager}, the same digests) with the PRODUCER role; with a JWT decoder configured,
 * a token that looks like a JWT is left to it. Anything else goes to the framework untouched, so every refusal of
 * the request's headers (401, 403, 406, 415) is Spring's. Spring Security's filter chain is not run, so neither is
 * the failed-login throttle ({@link LoginThrottle}): only a valid token is taken here, and a token cannot be
 * guessed. A request taken here is read and written by {@link Ingest} with the token's grant and answered by
 * {@link IngestResponder}, as {@link MessagesController} does, whatever the outcome (202, 200, a problem), plus the
 * headers Spring Security writes on every response; it is recorded in the same {@code http.server.requests} timer
 * with the same tags.
 *
 * <p>Tracing: used only while roots are never sampled ({@code management.tracing.sampling.probability} 0, the
 * default), where the framework's server span would not be recorded; the stored {@code traceparent} is then a new
 * unsampled root, as the framework's would be. A request with a trace context, or any request while roots may be
 * sampled, goes the framework's way. Spring Security's request firewall is not applied here: nothing beyond the
 * three headers above and the body is read. Thread-safe.
 */
final class IngestFastPath implements HttpHandlerDecoratorFactory {

    static final String PATH = "/v1/messages";
    /** Spring Security's Bearer header form ({@code ServerBearerTokenAuthenticationConverter}). */
    private static final Pattern BEARER =
            Pattern.compile("^Bearer (?<token>[a-zA-Z0-9-._~+/]+=*)$", Pattern.CASE_INSENSITIVE);
    private static final String PRODUCER = "ROLE_PRODUCER";
    private static final MediaType ANY_APPLICATION = new MediaType("application", "*");
    /** What Spring Security's default header writers put on every response (ApiSecurityConfiguration keeps them). */
    static final Map<String, String> SECURITY_HEADERS = securityHeaders();

    private static Map<String, String> securityHeaders() {
        Map<String, String> headers = new LinkedHashMap<>(); // in the order Spring Security writes them
        headers.put(HttpHeaders.CACHE_CONTROL, "no-cache, no-store, max-age=0, must-revalidate");
        headers.put(HttpHeaders.PRAGMA, "no-cache");
        headers.put(HttpHeaders.EXPIRES, "0");
        headers.put("X-Content-Type-Options", "nosniff");
        headers.put("X-Frame-Options", "DENY");
        headers.put("X-XSS-Protection", "0");
        headers.put("Referrer-Policy", "no-referrer");
        return Collections.unmodifiableMap(headers);
    }

    private final boolean enabled;
    private final ApiTokenAuthenticationManager tokens;
    private final boolean jwtDecoder;
    private final Ingest ingest;
    private final IngestResponder responder;
    private final MessageTracing tracing;
    private final MeterRegistry meters;
    /** The server timer's name, or null when the HTTP server observation is off. */
    private final String timerName;
    /** The server timer's series of a 202 and a 200 (the common answers, looked up once), or null when it is off. */
    private final Timer acceptedTimer;
    private final Timer duplicateTimer;
    /** Requests answered here. */
    private final LongAdder answered = new LongAdder();

    /**
     * @param timerName the HTTP server observation's name ({@code management.observations.http.server.requests
     *     .name}), or null when that observation is off: then nothing is recorded, as the framework would
     */
    IngestFastPath(boolean enabled, ApiTokenAuthenticationManager tokens, boolean jwtDecoder, Ingest ingest,
            IngestResponder responder, MessageTracing tracing, MeterRegistry meters, String timerName) {
        this.enabled = enabled && !tracing.rootsSampled();
        this.tokens = tokens;
        this.jwtDecoder = jwtDecoder;
        this.ingest = ingest;
        this.responder = responder;
        this.tracing = tracing;
        this.meters = meters;
        this.timerName = timerName;
        this.acceptedTimer = timerName == null ? null : serverTimer(HttpStatus.ACCEPTED);
        this.duplicateTimer = timerName == null ? null : serverTimer(HttpStatus.OK);
    }

    /** The series Spring's server observation records a {@code POST /v1/messages} answered {@code status} in. */
    private Timer serverTimer(HttpStatusCode status) {
        return Timer.builder(timerName)
                .tag("error", "none").tag("exception", "none").tag("method", "POST")
                .tag("outcome", status.is2xxSuccessful() ? "SUCCESS" : status.is4xxClientError() ? "CLIENT_ERROR"
                        : status.is5xxServerError() ? "SERVER_ERROR" : "UNKNOWN")
                .tag("status", Integer.toString(status.value())).tag("uri", PATH)
                .register(meters);
    }

    boolean enabled() {
        return enabled;
    }

    /** How many requests this path took and answered itself (counted before the answer is written). */
    long answered() {
        return answered.sum();
    }

    @Override
    public HttpHandler apply(HttpHandler next) {
        if (!enabled) {
            return next;
        }
        return (request, response) -> {
            ApiTokenAuthenticationManager.Entry token = tokenIfTaken(request);
            return token != null ? handle(request, response, token) : next.handle(request, response);
        };
    }

    /** Whether the request is one this path answers. Reads headers only. */
    boolean takes(ServerHttpRequest request) {
        return tokenIfTaken(request) != null;
    }

    /** The request's API token when this path takes the request ({@link #takes}); null if not. */
    private ApiTokenAuthenticationManager.Entry tokenIfTaken(ServerHttpRequest request) {
        if (request.getMethod() != HttpMethod.POST || !PATH.equals(request.getPath().pathWithinApplication().value())) {
            return null;
        }
        HttpHeaders headers = request.getHeaders();
        if (tracing.carriesContext(headers::containsHeader)) {
            return null;
        }
        try {
            MediaType contentType = headers.getContentType();
            if (contentType == null || !MediaType.APPLICATION_JSON.includes(contentType)) {
                return null;
            }
            for (MediaType accepted : headers.getAccept()) {
                if (!accepted.getParameters().isEmpty() || !(accepted.equals(MediaType.ALL)
                        || accepted.equals(MediaType.APPLICATION_JSON) || accepted.equals(ANY_APPLICATION))) {
                    return null;
                }
            }
        } catch (InvalidMediaTypeException e) {
            return null;
        }
        List<String> authorization = headers.getOrEmpty(HttpHeaders.AUTHORIZATION);
        if (authorization.size() != 1) {
            return null;
        }
        Matcher bearer = BEARER.matcher(authorization.get(0));
        if (!bearer.matches()) {
            return null;
        }
        String token = bearer.group("token");
        if (jwtDecoder && ApiSecurityConfiguration.looksLikeJwt(token)) {
            return null;
        }
        ApiTokenAuthenticationManager.Entry entry = tokens.match(token);
        return entry != null && entry.authorities().contains(PRODUCER) ? entry : null;
    }

    private Mono<Void> handle(ServerHttpRequest request, ServerHttpResponse response,
            ApiTokenAuthenticationManager.Entry token) {
        long started = System.nanoTime();
        String traceparent = tracing.enabled() ? MessageTracing.unsampledRoot() : null;
        SECURITY_HEADERS.forEach(response.getHeaders()::set);
        answered.increment(); // before the answer: a client may read it before the write's completion runs
        return responder.answer(request, response,
                        ingest.one(request.getBody(), request.getHeaders().getContentLength(),
                                IngestClientKey.ofToken(token.name()), token.topics(), traceparent))
                .doOnSuccess(done -> record(response.getStatusCode(), started));
    }

    private void record(HttpStatusCode status, long started) {
        if (timerName == null || status == null) {
            return;
        }
        Timer timer = status.value() == HttpStatus.ACCEPTED.value() ? acceptedTimer
                : status.value() == HttpStatus.OK.value() ? duplicateTimer : serverTimer(status);
        timer.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
    }
}
