package dev.dispatcher.app.api;

import dev.dispatcher.app.config.SecurityProperties;
import dev.dispatcher.app.ingest.TopicGrant;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Principal;
import java.util.HexFormat;
import java.util.List;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.ReactiveAuthenticationManager;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;
import reactor.core.publisher.Mono;

/**
 * Authenticates Bearer API tokens ({@code dispatcher.security.tokens}) by the SHA-256 of the presented token.
 *
 * <p>One hash and a comparison with every configured digest per request: microseconds, so it suits high-rate
 * producers (bcrypt would cost tens of milliseconds of CPU each). Comparisons are constant-time
 * ({@link MessageDigest#isEqual}) and all digests are compared, so timing tells nothing about which digest came
 * close. The token itself is never logged or kept. The authentication's name is the token's configured name; its
 * details are the token's {@link TopicGrant}.
 */
final class ApiTokenAuthenticationManager implements ReactiveAuthenticationManager {

    /** A configured token: its name, digest, authorities ({@code ROLE_} and the role) and the topics it may write. */
    record Entry(String name, byte[] sha256, List<String> authorities, TopicGrant topics) {
    }

    private final List<Entry> tokens;

    ApiTokenAuthenticationManager(List<SecurityProperties.Token> tokens) {
        this.tokens = tokens.stream()
                .map(t -> new Entry(t.name(), HexFormat.of().parseHex(t.sha256().toLowerCase(java.util.Locale.ROOT)),
                        t.roles().stream().map(role -> "ROLE_" + role).toList(), TopicGrant.of(t.topics())))
                .toList();
    }

    @Override
    public Mono<Authentication> authenticate(Authentication authentication) {
        return Mono.fromSupplier(() -> {
            Entry match = match(((BearerTokenAuthenticationToken) authentication).getToken());
            if (match == null) {
                throw new BadCredentialsException("unknown API token");
            }
            UsernamePasswordAuthenticationToken authenticated = UsernamePasswordAuthenticationToken.authenticated(
                    match.name(), null, AuthorityUtils.createAuthorityList(match.authorities()));
            authenticated.setDetails(match.topics());
            return authenticated;
        });
    }

    /** The topics an authenticated caller may write: its API token's grant, or every topic. */
    static TopicGrant grantOf(Principal caller) {
        return caller instanceof Authentication authentication
                && authentication.getDetails() instanceof TopicGrant grant ? grant : TopicGrant.ALL;
    }

    /** The configured token {@code token} is, or {@code null}; every digest is compared, in constant time. */
    Entry match(String token) {
        byte[] digest = sha256(token);
        Entry match = null;
        for (Entry entry : tokens) {
            if (MessageDigest.isEqual(entry.sha256(), digest) && match == null) {
                match = entry;
            }
        }
        return match;
    }

    static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
