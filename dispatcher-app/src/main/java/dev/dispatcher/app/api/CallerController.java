package dev.dispatcher.app.api;

import io.swagger.v3.oas.annotations.Operation;
import java.util.List;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * {@code GET /v1/me}: who the credentials are and what they may do, for any authenticated caller. The console reads
 * it to show a VIEWER a read-only console; a producer can check which topics its token may write.
 */
@RestController
final class CallerController {

    private static final String ROLE_PREFIX = "ROLE_";

    /**
     * @param name the authenticated name (user, token name or JWT subject), as audit entries record it
     * @param roles {@code PRODUCER}, {@code VIEWER}, {@code OPERATOR}
     * @param topics the topic patterns an API token may write; empty: every topic
     */
    record Caller(String name, List<String> roles, List<String> topics) {
    }

    @Problems(database = false)
    @Operation(operationId = "getCaller", summary = "Who the credentials are: name, roles and a token's topic patterns")
    @GetMapping("/v1/me")
    Mono<Caller> me(Authentication caller) {
        List<String> roles = caller.getAuthorities().stream().map(GrantedAuthority::getAuthority)
                .filter(a -> a != null && a.startsWith(ROLE_PREFIX)).map(a -> a.substring(ROLE_PREFIX.length()))
                .sorted().toList();
        return Mono.just(new Caller(caller.getName(), roles, ApiTokenAuthenticationManager.grantOf(caller).patterns()));
    }
}
