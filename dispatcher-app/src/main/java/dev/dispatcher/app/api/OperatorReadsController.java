package dev.dispatcher.app.api;

import static dev.dispatcher.app.api.ProblemType.INVALID_FIELD;
import static dev.dispatcher.app.api.ProblemType.NOT_FOUND;

import dev.dispatcher.app.outbox.SourceRelay;
import dev.dispatcher.app.source.PerSource;
import dev.dispatcher.app.store.AuditTrail;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import dev.dispatcher.app.store.InboxReads;
import tools.jackson.databind.JsonNode;
import dev.dispatcher.app.config.DispatcherProperties;
import dev.dispatcher.app.config.InboxProperties;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.RateHistory;
import dev.dispatcher.domain.Queue;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Read endpoints the operator console needs beyond single messages and stats (VIEWER or OPERATOR, like every
 * {@code /v1} read): a message's audit rows, this instance's recent rates and breaker state, and the inbox
 * consumers with their backlog and dead-letter counts (a consumer's dead letters: {@link InboxOperatorController}).
 * Every answer is bounded (a limit, a cursor, or the configured consumers).
 */
@RestController
final class OperatorReadsController {

    static final int MAX_AUDIT_ROWS = 100;

    private final PerSource<SourceRelay> relays;
    private final PerSource<InboxReads> inbox;
    private final CircuitBreaker breaker;
    private final DispatcherProperties properties;

    OperatorReadsController(PerSource<SourceRelay> relays, PerSource<InboxReads> inbox, CircuitBreaker breaker,
            DispatcherProperties properties) {
        this.relays = relays;
        this.inbox = inbox;
        this.breaker = breaker;
        this.properties = properties;
    }

    /** {@code {"items":[...]}}. */
    record Items<T>(List<T> items) {
    }

    /** {@code {"items":[...],"nextCursor":...}}; {@code nextCursor} is null on the last page. */
    record Page<T>(List<T> items, String nextCursor) {
    }

    /** This instance's relay: totals, breaker state, and the recent samples (oldest first). */
    record Rates(String instance, long intervalSeconds, double publishedTotal, double deadLetteredTotal,
            String breaker, List<Sample> samples) {
    }

    /** One interval of {@link Rates}. */
    record Sample(String at, double publishedPerSecond, double deadLetteredPerSecond, long backlog,
            long oldestLiveAgeMs) {
    }

    /**
     * A configured inbox consumer, its options and its figures: {@code ordering} as configured ({@code per-key} or
     * {@code none}), {@code deadLetterTopic} the template ({@code {topic}.DLT}) or null when off, {@code source} the
     * source whose database holds its inbox table.
     */
    record Consumer(String name, List<String> topics, String groupId, String handler, String ordering,
            String deadLetterTopic, long pending, long retryScheduled, long backlogTotal, long deadLettered,
            long oldestLiveAgeMs, String source) {
    }

    /** One operator mutation of a message, as {@code dispatch_audit} holds it. */
    record AuditEntry(long id, String occurredAt, String actor, String action, JsonNode detail, JsonNode before,
            JsonNode after) {

        static AuditEntry of(AuditTrail.Entry e) {
            return new AuditEntry(e.id(), e.occurredAt().toString(), e.actor(), e.action(), json(e.detail()),
                    json(e.before()), json(e.after()));
        }

        private static JsonNode json(String text) {
            return text == null ? null : ApiJson.JSON.readTree(text);
        }
    }

    @Problems({INVALID_FIELD, NOT_FOUND})
    @Operation(operationId = "getMessageAudit",
            summary = "The latest operator changes of one outbox message, newest first")
    @GetMapping("/v1/messages/{id}/audit")
    Mono<Items<AuditEntry>> audit(@PathVariable String id, @Parameter(description = SourceParameter.QUERY_DOC)
            @RequestParam(defaultValue = SourceParameter.DEFAULT) String source) {
        UUID uuid = MessageOperatorController.messageId(id);
        return SourceParameter.of(source, relays::get).audit().byMessage(uuid, MAX_AUDIT_ROWS)
                .map(rows -> new Items<>(rows.stream().map(AuditEntry::of)
                .toList()));
    }

    @Problems(value = NOT_FOUND, database = false)
    @Operation(operationId = "getRates", summary = "This instance's relay rates over the last 10 minutes")
    @GetMapping("/v1/rates")
    Rates rates(@Parameter(description = SourceParameter.QUERY_DOC)
            @RequestParam(defaultValue = SourceParameter.DEFAULT) String source) {
        SourceRelay relay = SourceParameter.of(source, relays::get);
        RateHistory history = relay.history();
        DispatcherMetrics metrics = relay.metrics();
        List<Sample> samples = history.samples().stream()
                .map(s -> new Sample(s.at().toString(), s.publishedPerSecond(), s.deadLetteredPerSecond(),
                        s.backlog(), s.oldestLiveAgeMs()))
                .toList();
        return new Rates(properties.workerId(), history.interval().toSeconds(),
                metrics.totals(Queue.OUTBOX).succeeded(),
                metrics.totals(Queue.OUTBOX).deadLettered(), breaker.getState().name(),
                samples);
    }

    @Operation(operationId = "listInboxConsumers",
            summary = "The configured inbox consumers with their backlogs and dead letters")
    @GetMapping("/v1/inbox/consumers")
    Mono<Items<Consumer>> consumers() {
        List<InboxProperties.Consumer> configured = properties.inbox().consumers();
        // each source's consumers read from that source's database, one statement per source
        Map<String, List<String>> namesBySource = configured.stream().collect(Collectors.groupingBy(
                InboxProperties.Consumer::source, LinkedHashMap::new,
                Collectors.mapping(InboxProperties.Consumer::name, Collectors.toList())));
        return Flux.fromIterable(namesBySource.entrySet())
                .flatMapSequential(e -> inbox.get(e.getKey()).backlogs(e.getValue()))
                .flatMapIterable(Function.identity())
                .collectList()
                .map(backlogs -> {
                    Map<String, InboxReads.ConsumerBacklog> byName = backlogs.stream()
                            .collect(Collectors.toMap(InboxReads.ConsumerBacklog::consumer, Function.identity()));
                    return new Items<>(configured.stream().map(c -> {
                        InboxReads.ConsumerBacklog b = byName.get(c.name());
                        return new Consumer(c.name(), c.topics(), c.groupId(), c.handler(),
                                c.ordering().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                                c.deadLetterTopic().isEmpty() ? null : c.deadLetterTopic(), b.pending(),
                                b.retryScheduled(), b.pending() + b.retryScheduled(), b.deadLettered(),
                                b.oldestAge().toMillis(), c.source());
                    }).toList());
                });
    }
}
