package dev.dispatcher.app.api;

import static dev.dispatcher.app.api.ProblemType.INVALID_FIELD;
import static dev.dispatcher.app.api.ProblemType.MALFORMED_JSON;
import static dev.dispatcher.app.api.ProblemType.NOT_FOUND;
import static dev.dispatcher.app.api.ProblemType.TOO_LARGE;

import dev.dispatcher.app.outbox.SourceRelay;
import dev.dispatcher.app.source.PerSource;
import dev.dispatcher.app.store.OperatorStore;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Operator endpoints beyond single messages: stats, bulk replay of dead letters, the cluster-wide relay switch; each
 * of one source ({@code ?source=}, the default source when absent).
 */
@RestController
final class OperatorController {

    /** How long {@code GET /v1/stats} waits for another source's figures before listing it unavailable. */
    static final Duration SOURCE_STATS_TIMEOUT = Duration.ofSeconds(2);

    private final PerSource<OperatorStore> operators;
    private final PerSource<SourceRelay> relays;

    OperatorController(PerSource<OperatorStore> operators, PerSource<SourceRelay> relays) {
        this.operators = operators;
        this.relays = relays;
    }

    /**
     * The figures of one source, and a line for each source: a source whose database does not answer within
     * {@link #SOURCE_STATS_TIMEOUT} is listed as unavailable rather than holding back the answer (the source asked
     * for answers as its database does: 503 when it fails).
     */
    @Problems(NOT_FOUND)
    @Operation(operationId = "getStats",
            summary = "Backlog, dead letters and pause state of a source, and a line per source")
    @GetMapping("/v1/stats")
    Mono<OperatorResponses.Stats> stats(@Parameter(description = SourceParameter.QUERY_DOC)
            @RequestParam(defaultValue = SourceParameter.DEFAULT) String source) {
        Mono<OperatorStore.Stats> selected = statsOf(SourceParameter.of(source, relays::get)).cache();
        Mono<List<OperatorResponses.SourceStats>> lines = Flux.fromIterable(relays.all())
                .flatMapSequential(relay -> (relay.name().equals(source) ? selected
                                : statsOf(relay).timeout(SOURCE_STATS_TIMEOUT))
                        .map(stats -> OperatorResponses.SourceStats.of(relay.name(), stats))
                        .onErrorResume(e -> Mono.just(OperatorResponses.SourceStats.unavailable(relay.name()))))
                .collectList();
        return selected.flatMap(stats -> lines.map(all -> OperatorResponses.Stats.of(source, stats, all)));
    }

    private Mono<OperatorStore.Stats> statsOf(SourceRelay relay) {
        return operators.get(relay.name()).stats(relay.control().relayPaused());
    }

    /**
     * Replays dead letters matching an optional JSON filter ({@link ReplayFilter}); an empty body replays the oldest
     * {@value ReplayFilter#DEFAULT_LIMIT}. Bounded: at most {@value ReplayFilter#MAX_LIMIT} per call.
     */
    @RequestBody(description = ReplayFilter.DOC, content = @Content(schema = @Schema(
            implementation = ReplayFilter.class)))
    @Problems({INVALID_FIELD, MALFORMED_JSON, TOO_LARGE, NOT_FOUND})
    @Operation(operationId = "replayDeadLetters",
            summary = "Replay outbox dead letters matching a filter, oldest first")
    @PostMapping("/v1/dead-letters/replay")
    Mono<OperatorResponses.BulkReplay> replayDeadLetters(@Parameter(description = SourceParameter.QUERY_DOC)
            @RequestParam(defaultValue = SourceParameter.DEFAULT) String source, ServerWebExchange exchange,
            Principal principal) {
        OperatorStore operator = SourceParameter.of(source, operators::get);
        return ReplayFilter.read(exchange)
                .flatMap(f -> operator.replayDeadLetters(f.topic(), f.key(), f.errorContains(), f.limit(),
                        principal.getName()))
                .map(ids -> new OperatorResponses.BulkReplay(ids.size(), ids.stream().map(Object::toString).toList()));
    }

    /** Pauses the relay of one source (its {@code dispatcher_control}), on every instance. */
    @Problems(NOT_FOUND)
    @Operation(operationId = "pauseRelay", summary = "Pause the relay of a source on every instance")
    @PostMapping("/v1/relay/pause")
    Mono<OperatorResponses.RelaySwitch> pause(@Parameter(description = SourceParameter.QUERY_DOC)
            @RequestParam(defaultValue = SourceParameter.DEFAULT) String source, Principal principal) {
        return setPaused(SourceParameter.of(source, relays::get), true, principal);
    }

    @Problems(NOT_FOUND)
    @Operation(operationId = "resumeRelay", summary = "Resume the relay of a source on every instance")
    @PostMapping("/v1/relay/resume")
    Mono<OperatorResponses.RelaySwitch> resume(@Parameter(description = SourceParameter.QUERY_DOC)
            @RequestParam(defaultValue = SourceParameter.DEFAULT) String source, Principal principal) {
        return setPaused(SourceParameter.of(source, relays::get), false, principal);
    }

    private Mono<OperatorResponses.RelaySwitch> setPaused(SourceRelay relay, boolean paused, Principal principal) {
        return relay.control().setRelayPaused(paused, principal.getName())
                // this instance applies it at once; the others within their poll interval
                .flatMap(previous -> relay.pauseSwitch().refresh().onErrorResume(e -> Mono.just(paused))
                        .thenReturn(previous))
                .map(previous -> new OperatorResponses.RelaySwitch(paused, previous));
    }
}
