package dev.dispatcher.app.api;

import static dev.dispatcher.app.api.ProblemType.INVALID_FIELD;
import static dev.dispatcher.app.api.ProblemType.MALFORMED_JSON;
import static dev.dispatcher.app.api.ProblemType.TOO_LARGE;

import dev.dispatcher.app.outbox.PauseSwitch;
import dev.dispatcher.app.store.ControlStore;
import dev.dispatcher.app.store.OperatorStore;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import java.security.Principal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/** Operator endpoints beyond single messages: stats, bulk replay of dead letters, the cluster-wide relay switch. */
@RestController
final class OperatorController {

    private final OperatorStore operator;
    private final ControlStore control;
    private final PauseSwitch pauseSwitch;

    OperatorController(OperatorStore operator, ControlStore control, PauseSwitch pauseSwitch) {
        this.operator = operator;
        this.control = control;
        this.pauseSwitch = pauseSwitch;
    }

    @GetMapping("/v1/stats")
    Mono<OperatorResponses.Stats> stats() {
        return operator.stats(control.relayPaused()).map(OperatorResponses.Stats::of);
    }

    /**
     * Replays dead letters matching an optional JSON filter ({@link ReplayFilter}); an empty body replays the oldest
     * {@value ReplayFilter#DEFAULT_LIMIT}. Bounded: at most {@value ReplayFilter#MAX_LIMIT} per call.
     */
    @RequestBody(description = ReplayFilter.DOC, content = @Content(schema = @Schema(
            implementation = ReplayFilter.class)))
    @Problems({INVALID_FIELD, MALFORMED_JSON, TOO_LARGE})
    @PostMapping("/v1/dead-letters/replay")
    Mono<OperatorResponses.BulkReplay> replayDeadLetters(ServerWebExchange exchange, Principal principal) {
        return ReplayFilter.read(exchange)
                .flatMap(f -> operator.replayDeadLetters(f.topic(), f.key(), f.errorContains(), f.limit(),
                        principal.getName()))
                .map(ids -> new OperatorResponses.BulkReplay(ids.size(), ids.stream().map(Object::toString).toList()));
    }

    @PostMapping("/v1/relay/pause")
    Mono<OperatorResponses.RelaySwitch> pause(Principal principal) {
        return setPaused(true, principal);
    }

    @PostMapping("/v1/relay/resume")
    Mono<OperatorResponses.RelaySwitch> resume(Principal principal) {
        return setPaused(false, principal);
    }

    private Mono<OperatorResponses.RelaySwitch> setPaused(boolean paused, Principal principal) {
        return control.setRelayPaused(paused, principal.getName())
                // this instance applies it at once; the others within their poll interval
                .flatMap(previous -> pauseSwitch.refresh().onErrorResume(e -> Mono.just(paused)).thenReturn(previous))
                .map(previous -> new OperatorResponses.RelaySwitch(paused, previous));
    }
}
