package dev.dispatcher.app.api;

import dev.dispatcher.app.observe.MessageTracing;
import dev.dispatcher.app.store.IngestResult;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.net.URI;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.HttpHandlerDecoratorFactory;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.util.DisconnectedClientHelper;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Signal;
import tools.jackson.databind.json.JsonMapper;

/**
 * The common case of single-message ingest, {@code POST /v1/messages} by an API token holder that ends in
 * {@code 202} or {@code 200}, answered around the framework: measured under load, WebFlux's dispatch, Spring
 * Security's filter chain and Spring's HTTP server observation took about 270 of the service's 450 µs of CPU per
 * request, on two cores shared with PostgreSQL, the broker and the clients (README, "The single-message fast
 * path").
 *
 * <p>What it takes: the exact path (within the context path), a JSON {@code Content-Type}, an {@code Accept} that
 * is absent or plain JSON, no trace context the propagator would read, and a Bearer API token
 * ({@link ApiTokenAuthenticationManager}, the same digests) with the PRODUCER role; with a JWT decoder configured,
 * a token that looks like a JWT is left to it. The token's {@link TopicGrant} applies here as on the framework's
 * path (a topic outside it is a problem handed to the framework, like any other). Spring Security's filter chain is
 * not run, so neither is the failed-login throttle ({@link LoginThrottle}): only a valid token is answered here,
 * and a token cannot be guessed. Anything else goes to the framework untouched, so every refusal
 * (401, 403, 406, 415) is Spring's. The message is read, parsed, checked against the backlog and written by the same
 * {@link SingleIngest} as {@link MessagesController}'s. Only {@code Accepted} and {@code Duplicate} are answered here, with the
 * controller's status, headers and body plus the headers Spring Security writes on every response, and recorded in
 * the same {@code http.server.requests} timer with the same tags. Every other outcome (a problem before the write,
 * a conflict, a failed write) is settled here but handed to the framework, whose controller answers it through
 * {@link #takeSettled} instead of reading the body again: errors look the same whichever way a request came, and
 * nothing is written twice.
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
    private final SingleIngest single;
    private final MessageTracing tracing;
    private final JsonMapper json;
    /** The server timer's series of a 202 and a 200, or null when the HTTP server observation is off. */
    private final Timer acceptedTimer;
    private final Timer duplicateTimer;
    /** Outcomes of requests handed to the framework, by request id, until its controller takes them. */
    private final Map<String, Mono<List<IngestResult>>> settled = new ConcurrentHashMap<>();
    /** Requests answered here. */
    private final LongAdder answered = new LongAdder();

    /**
     * @param timerName the HTTP server observation's name ({@code management.observations.http.server.requests
     *     .name}), or null when that observation is off: then nothing is recorded, as the framework would
     */
    IngestFastPath(boolean enabled, ApiTokenAuthenticationManager tokens, boolean jwtDecoder,
            SingleIngest single, MessageTracing tracing, JsonMapper json, MeterRegistry meters, String timerName) {
        this.enabled = enabled && !tracing.rootsSampled();
        this.tokens = tokens;
        this.jwtDecoder = jwtDecoder;
        this.single = single;
        this.tracing = tracing;
        this.json = json;
        this.acceptedTimer = timerName == null ? null : serverTimer(meters, timerName, HttpStatus.ACCEPTED);
        this.duplicateTimer = timerName == null ? null : serverTimer(meters, timerName, HttpStatus.OK);
    }

    /** The series Spring's server observation records a successful {@code POST /v1/messages} in. */
    private static Timer serverTimer(MeterRegistry meters, String name, HttpStatus status) {
        return Timer.builder(name)
                .tag("error", "none").tag("exception", "none").tag("method", "POST").tag("outcome", "SUCCESS")
                .tag("status", Integer.toString(status.value())).tag("uri", PATH)
                .register(meters);
    }

    boolean enabled() {
        return enabled;
    }

    /** How many requests this path answered itself (counted as the answer is written). */
    long answered() {
        return answered.sum();
    }

    /** Outcomes handed to the framework and not yet taken by its controller. */
    int handedOver() {
        return settled.size();
    }

    @Override
    public HttpHandler apply(HttpHandler next) {
        if (!enabled) {
            return next;
        }
        return (request, response) -> {
            TopicGrant grant = grantIfTaken(request);
            return grant != null ? handle(request, response, next, grant) : next.handle(request, response);
        };
    }

    /**
     * The outcome this path settled for the request {@code requestId} before handing it to the framework, once;
     * {@code null} for a request that came the framework's way from the start.
     */
    Mono<List<IngestResult>> takeSettled(String requestId) {
        return settled.remove(requestId);
    }

    /** Whether the request is one this path answers when its outcome is plain. Reads headers only. */
    boolean takes(ServerHttpRequest request) {
        return grantIfTaken(request) != null;
    }

    /** The topics the request's token may write when this path takes the request ({@link #takes}); null if not. */
    private TopicGrant grantIfTaken(ServerHttpRequest request) {
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
        return entry != null && entry.authorities().contains(PRODUCER) ? entry.topics() : null;
    }

    private Mono<Void> handle(ServerHttpRequest request, ServerHttpResponse response, HttpHandler next,
            TopicGrant grant) {
        long started = System.nanoTime();
        String traceparent = tracing.enabled() ? MessageTracing.unsampledRoot() : null;
        return single.write(request, traceparent, grant)
                .materialize()
                .flatMap(outcome -> {
                    if (outcome.isOnNext() && !(outcome.get().get(0) instanceof IngestResult.Conflict)) {
                        return answer(response, outcome.get().get(0), started);
                    }
                    if (outcome.isOnError() && DisconnectedClientHelper.isClientDisconnectedException(
                            outcome.getThrowable())) {
                        return Mono.error(outcome.getThrowable());
                    }
                    return handOver(request, response, next, settledAs(outcome));
                });
    }

    private static Mono<List<IngestResult>> settledAs(Signal<List<IngestResult>> outcome) {
        if (outcome.isOnNext()) {
            return Mono.just(outcome.get());
        }
        return outcome.isOnError() ? Mono.error(outcome.getThrowable())
                : Mono.error(new IllegalStateException("ingest completed without a result"));
    }

    /** The framework answers the request, its controller taking {@code outcome} instead of reading the body. */
    private Mono<Void> handOver(ServerHttpRequest request, ServerHttpResponse response, HttpHandler next,
            Mono<List<IngestResult>> outcome) {
        String id = request.getId();
        settled.put(id, outcome);
        return next.handle(request, response).doFinally(signal -> settled.remove(id));
    }

    /** {@link MessagesController}'s answer to an accepted or duplicate message. */
    private Mono<Void> answer(ServerHttpResponse response, IngestResult result, long started) {
        boolean accepted = result instanceof IngestResult.Accepted;
        byte[] body = json.writeValueAsBytes(MessagesController.EntryResponse.of(result.entry()));
        response.setStatusCode(accepted ? HttpStatus.ACCEPTED : HttpStatus.OK);
        HttpHeaders headers = response.getHeaders();
        if (accepted) {
            headers.setLocation(URI.create("/v1/messages/" + result.entry().id()));
        } else {
            headers.setETag("\"" + result.entry().version() + "\"");
        }
        headers.setContentType(MediaType.APPLICATION_JSON);
        headers.setContentLength(body.length);
        SECURITY_HEADERS.forEach(headers::set);
        Timer timer = accepted ? acceptedTimer : duplicateTimer;
        answered.increment(); // before the write: a client may read the answer before the write's completion runs
        return response.writeWith(Mono.just(response.bufferFactory().wrap(body)))
                .doOnSuccess(done -> {
                    if (timer != null) {
                        timer.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
                    }
                });
    }
}
