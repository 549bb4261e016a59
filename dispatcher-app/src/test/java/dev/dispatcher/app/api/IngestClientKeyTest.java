package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.ingest.TopicGrant;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;

/** Who an ingest request counts against: its credential, each kind apart, else its address. */
class IngestClientKeyTest {

    private final MockServerHttpRequest request = MockServerHttpRequest.post("/v1/messages")
            .remoteAddress(new InetSocketAddress("203.0.113.7", 40000)).build();

    @Test
    void anApiTokenIsCountedByItsNameAsOnTheFastPath() {
        UsernamePasswordAuthenticationToken token = UsernamePasswordAuthenticationToken.authenticated("orders", null,
                AuthorityUtils.createAuthorityList("ROLE_PRODUCER"));
        token.setDetails(TopicGrant.of(List.of()));

        assertThat(IngestClientKey.of(token, request)).isEqualTo(IngestClientKey.ofToken("orders"));
    }

    @Test
    void aUserOfTheSameNameIsAnotherClient() {
        UsernamePasswordAuthenticationToken user = UsernamePasswordAuthenticationToken.authenticated("orders", null,
                AuthorityUtils.createAuthorityList("ROLE_PRODUCER"));

        assertThat(IngestClientKey.of(user, request)).isEqualTo("user orders")
                .isNotEqualTo(IngestClientKey.ofToken("orders"));
    }

    @Test
    void withoutACredentialTheAddressIsTheClient() {
        assertThat(IngestClientKey.of(null, request)).isEqualTo("address 203.0.113.7");
    }
}
