package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.config.SecurityProperties;
import dev.dispatcher.app.ingest.TopicGrant;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

/** Which topics an authenticated caller may write: its API token's grant, or every topic. */
class ApiTokenAuthenticationManagerTest {

    @Test
    void aTokensGrantTravelsWithItsAuthentication() {
        String token = "orders-secret";
        ApiTokenAuthenticationManager tokens = new ApiTokenAuthenticationManager(List.of(new SecurityProperties.Token(
                "orders", HexFormat.of().formatHex(ApiTokenAuthenticationManager.sha256(token)), List.of("PRODUCER"),
                List.of("orders.*"))));

        Authentication caller = tokens.authenticate(new BearerTokenAuthenticationToken(token)).block();

        TopicGrant grant = ApiTokenAuthenticationManager.grantOf(caller);
        assertThat(grant.patterns()).containsExactly("orders.*");
        assertThat(grant.allows("orders.eu")).isTrue();
        assertThat(grant.allows("payments")).isFalse();
    }

    @Test
    void noPatternsMeansEveryTopic() {
        assertThat(ApiTokenAuthenticationManager.grantOf(null)).isSameAs(TopicGrant.ALL);
    }
}
