package dev.dispatcher.app.inbox;

import dev.dispatcher.app.observe.MessageTracing;
import dev.dispatcher.domain.FailureKind;
import dev.dispatcher.domain.MessageHeaders;
import java.net.URI;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * The built-in {@code webhook} handler: POSTs each message's payload to the consumer's URL with
 * {@code Idempotency-Key: <message id>}, its content type, {@code Event-Type}, {@code Message-Key-Base64} (the
 * record key's bytes as received, base64: lossless for text and binary keys alike, which an HTTP header could not
 * carry as they are) and {@code traceparent}: the inbox handling span's when tracing is on
 * ({@link MessageTracing#HANDLING_TRACEPARENT}), else the record's, if any.
 *
 * <p>2xx completes the message. 408, 429 and 5xx, time-outs ({@code webhook.timeout}) and connection errors are
 * transient (retried with backoff, dead-lettered at the attempt limit); every other status (other 4xx, and 1xx/3xx,
 * which no retry changes: redirects are not followed) is permanent and dead-letters at once. Because a retry after
 * a lost response repeats the POST, receivers deduplicate on {@code Idempotency-Key}. Not transactional: no
 * database connection is held while the request runs. Non-blocking (reactor-netty).
 */
final class WebhookHandler implements InboxHandler {

    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    static final String EVENT_TYPE = "Event-Type";
    static final String MESSAGE_KEY_BASE64 = "Message-Key-Base64";

    private final WebClient client;
    private final URI url;
    private final Duration timeout;

    WebhookHandler(WebClient client, URI url, Duration timeout) {
        this.client = Objects.requireNonNull(client, "client");
        this.url = Objects.requireNonNull(url, "url");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * A webhook handler with its own connection pool of {@code connections} (the consumer's concurrency), so
     * concurrent calls never queue for a connection behind other WebClients of the service.
     */
    static WebhookHandler create(URI url, Duration timeout, int connections) {
        ConnectionProvider pool = ConnectionProvider.builder("dispatcher-webhook")
                .maxConnections(Math.max(1, connections))
                .pendingAcquireMaxCount(-1)
                .build();
        WebClient client = WebClient.builder()
                .clientConnector(new ReactorClientHttpConnector(HttpClient.create(pool)))
                .build();
        return new WebhookHandler(client, url, timeout);
    }

    @Override
    public String name() {
        return "webhook";
    }

    @Override
    public boolean transactional() {
        return false;
    }

    @Override
    public Mono<Void> handle(InboxMessage message, HandlerContext context) {
        return Mono.deferContextual(reactorContext -> client.post()
                        .uri(url)
                        .contentType(mediaType(message.contentType()))
                        .headers(h -> {
                            h.set(IDEMPOTENCY_KEY, message.id().value());
                            if (message.eventType() != null) {
                                h.set(EVENT_TYPE, message.eventType());
                            }
                            byte[] key = message.rawKey();
                            if (key != null) {
                                h.set(MESSAGE_KEY_BASE64, Base64.getEncoder().encodeToString(key));
                            }
                            // the handling span's when traced, else the one the record came with
                            String traceparent = reactorContext.getOrDefault(MessageTracing.HANDLING_TRACEPARENT,
                                    message.headers().get(MessageHeaders.TRACEPARENT));
                            if (traceparent != null) {
                                h.set(MessageHeaders.TRACEPARENT, traceparent);
                            }
                        })
                        .bodyValue(message.payload())
                        .exchangeToMono(response -> response.releaseBody().thenReturn(response.statusCode())))
                .timeout(timeout)
                .onErrorMap(TimeoutException.class, e -> InboxHandlerException.transientFailure(
                        "webhook timed out after " + timeout.toMillis() + " ms", e))
                .onErrorMap(WebClientRequestException.class, e -> InboxHandlerException.transientFailure(
                        "webhook request failed: " + e.getMessage(), e))
                .flatMap(WebhookHandler::outcome);
    }

    /** 2xx: done; 408, 429, 5xx: transient; anything else: permanent. */
    static Mono<Void> outcome(HttpStatusCode status) {
        int code = status.value();
        if (status.is2xxSuccessful()) {
            return Mono.empty();
        }
        FailureKind kind = code == 408 || code == 429 || status.is5xxServerError()
                ? FailureKind.TRANSIENT : FailureKind.PERMANENT;
        return Mono.error(new InboxHandlerException(kind, "webhook answered " + code, null));
    }

    private static MediaType mediaType(String contentType) {
        try {
            return MediaType.parseMediaType(contentType);
        } catch (InvalidMediaTypeException e) {
            return MediaType.APPLICATION_OCTET_STREAM;
        }
    }

    @Override
    public String toString() {
        return "WebhookHandler[" + url + "]";
    }
}
