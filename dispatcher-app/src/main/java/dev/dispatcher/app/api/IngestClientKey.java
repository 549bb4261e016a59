package dev.dispatcher.app.api;

import dev.dispatcher.app.ingest.TopicGrant;
import java.security.Principal;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.security.core.Authentication;

/**
 * Who an ingest request counts against in {@code dispatcher.ingest.max-concurrent-requests-per-client}: its
 * authenticated credential when it has one (an API token by its configured name, on the fast path and the
 * framework's way alike; a user or JWT subject by its name), otherwise its client address as {@link
 * LoginThrottle#clientKey} decides it (an IPv6 address by its /64). The kinds are told apart, so a token and a user
 * of the same name, or a name that reads like an address, are different clients.
 */
final class IngestClientKey {

    private IngestClientKey() {
    }

    /** The key of an API token, by its configured name. */
    static String ofToken(String tokenName) {
        return "token " + tokenName;
    }

    /** The key of {@code request}, whose authenticated caller is {@code caller} (null when there is none). */
    static String of(Principal caller, ServerHttpRequest request) {
        if (caller instanceof Authentication authentication && authentication.getDetails() instanceof TopicGrant) {
            return ofToken(authentication.getName()); // ApiTokenAuthenticationManager's: details are the grant
        }
        if (caller != null) {
            return "user " + caller.getName();
        }
        return "address " + LoginThrottle.clientKey(request.getRemoteAddress());
    }
}
