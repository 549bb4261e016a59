package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.DispatcherApplication;
import dev.dispatcher.app.DispatcherTestProperties;
import dev.dispatcher.app.observe.AuthFailureCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.netty.http.client.HttpClient;

/**
 * Failed authentications are throttled per client address, per address and user name, and per name (ten times the
 * limit, sparing an address the name signed in from) with the default settings (10 per minute), in a service of
 * its own (the shared API service lets its tests fail logins freely): a guesser throttles itself, never the user on
 * another address. Clients are told apart by their source address: each test client connects from its own loopback
 * address (127.0.0.0/8 is all loopback on Linux).
 */
@SpringBootTest(classes = DispatcherApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class FailedLoginThrottleIT {

    static final String SCHEMA = "throttle_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    static final String TOKEN = "ops-token-" + UUID.randomUUID();
    static final int LIMIT = 10;

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry meters;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        DispatcherTestProperties.register(registry, () -> SCHEMA);
        registry.add("dispatcher.worker-id", () -> "throttle-it");
        // a real bcrypt hash at Spring Security's default cost, as a production user would have
        user(registry, 0, "demo", "{bcrypt}" + new BCryptPasswordEncoder(10).encode("demo-pw"));
        user(registry, 1, "operator", "{noop}operator-pw");
        user(registry, 2, "victim", "{noop}victim-pw");
        registry.add("dispatcher.security.tokens[0].name", () -> "ops-bot");
        registry.add("dispatcher.security.tokens[0].sha256",
                () -> HexFormat.of().formatHex(ApiTokenAuthenticationManager.sha256(TOKEN)));
        registry.add("dispatcher.security.tokens[0].roles", () -> "OPERATOR");
    }

    private static void user(DynamicPropertyRegistry registry, int i, String name, String password) {
        registry.add("dispatcher.security.users[" + i + "].name", () -> name);
        registry.add("dispatcher.security.users[" + i + "].password", () -> password);
        registry.add("dispatcher.security.users[" + i + "].roles", () -> "OPERATOR");
    }

    /** A client whose connections come from {@code address}. */
    private WebTestClient from(String address) {
        HttpClient client = HttpClient.create().bindAddress(() -> new InetSocketAddress(address, 0));
        return WebTestClient.bindToServer(new ReactorClientHttpConnector(client))
                .baseUrl("http://127.0.0.1:" + port).responseTimeout(Duration.ofSeconds(30)).build();
    }

    private static EntityExchangeResult<byte[]> stats(WebTestClient client, String user, String password) {
        return client.get().uri("/v1/stats").headers(h -> h.setBasicAuth(user, password)).exchange()
                .expectBody().returnResult();
    }

    private double failures(AuthFailureCounter.Reason reason) {
        return meters.get(AuthFailureCounter.NAME).tag("reason", reason.tag()).counter().count();
    }

    @Test
    void fiftyWrongPasswordsFromOneClientAreThrottledWhileAnotherClientSignsIn() {
        WebTestClient attacker = from("127.0.0.2");
        WebTestClient other = from("127.0.0.3");
        double badBefore = failures(AuthFailureCounter.Reason.BAD_CREDENTIALS);
        double throttledBefore = failures(AuthFailureCounter.Reason.THROTTLED);
        List<Integer> statuses = new ArrayList<>();
        List<Long> refusedNanos = new ArrayList<>();
        List<Long> throttledNanos = new ArrayList<>();

        for (int i = 0; i < 50; i++) {
            long started = System.nanoTime();
            EntityExchangeResult<byte[]> answer = stats(attacker, "demo", "guess-" + i);
            long took = System.nanoTime() - started;
            int status = answer.getStatus().value();
            statuses.add(status);
            (status == 429 ? throttledNanos : refusedNanos).add(took);
            if (status == 429) {
                long retryAfter = Long.parseLong(answer.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER));
                assertThat(retryAfter).isBetween(1L, 60L);
                assertThat(answer.getResponseHeaders().getContentType())
                        .isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
            }
            if (i == 30) {
                assertThat(stats(other, "operator", "operator-pw").getStatus().value())
                        .as("another client signs in meanwhile").isEqualTo(200);
            }
        }

        assertThat(statuses.subList(0, LIMIT)).containsOnly(401);
        assertThat(statuses.subList(LIMIT, 50)).containsOnly(429);
        assertThat(median(throttledNanos)).as("a throttled attempt hashes nothing: faster than half a refused one")
                .isLessThan(median(refusedNanos) / 2);
        assertThat(stats(attacker, "operator", "operator-pw").getStatus().value())
                .as("the throttled client, even with right credentials").isEqualTo(429);
        assertThat(stats(other, "demo", "demo-pw").getStatus().value())
                .as("the guessed name, from another client that never signed in with it").isEqualTo(200);
        assertThat(stats(other, "operator", "operator-pw").getStatus().value()).isEqualTo(200);
        assertThat(failures(AuthFailureCounter.Reason.BAD_CREDENTIALS) - badBefore).isEqualTo(LIMIT);
        assertThat(failures(AuthFailureCounter.Reason.THROTTLED) - throttledBefore).isEqualTo(50 - LIMIT + 1);
    }

    @Test
    void aNameGuessedFromManyClientsIsThrottledExceptWhereItSignedInAndAnUnknownNameLooksTheSame() {
        assertThat(stats(from("127.0.1.100"), "victim", "victim-pw").getStatus().value())
                .as("the user signs in before the guessing").isEqualTo(200);
        int clients = LoginThrottle.NAME_LIMIT_FACTOR;
        String[] names = {"victim", "ghost"};
        for (int n = 0; n < names.length; n++) {
            String name = names[n];
            for (int c = 1; c <= clients; c++) {
                WebTestClient guesser = from("127.0." + (3 + n) + "." + c); // addresses of its own per name
                for (int i = 1; i <= LIMIT; i++) {
                    assertThat(stats(guesser, name, "guess-" + i).getStatus().value()).isEqualTo(401);
                }
                assertThat(stats(guesser, name, "guess").getStatus().value())
                        .as("%s from a client past its limit for the name", name).isEqualTo(429);
            }
            WebTestClient fresh = from("127.0." + (3 + n) + ".101");
            assertThat(stats(fresh, name, "guess").getStatus().value())
                    .as("%s past its own limit, from a client that never tried it", name).isEqualTo(429);
            assertThat(stats(fresh, "operator", "operator-pw").getStatus().value())
                    .as("that client is not throttled for other names").isEqualTo(200);
        }
        assertThat(stats(from("127.0.1.100"), "victim", "victim-pw").getStatus().value())
                .as("the user, from where it signed in").isEqualTo(200);
    }

    @Test
    void wrongTokensCountAgainstTheirClientToo() {
        WebTestClient client = from("127.0.2.1");
        double before = failures(AuthFailureCounter.Reason.BAD_TOKEN);
        for (int i = 0; i < LIMIT; i++) {
            client.get().uri("/v1/stats").headers(h -> h.setBearerAuth("guess-" + UUID.randomUUID())).exchange()
                    .expectStatus().isUnauthorized();
        }
        client.get().uri("/v1/stats").headers(h -> h.setBearerAuth(TOKEN)).exchange()
                .expectStatus().isEqualTo(429);
        from("127.0.2.2").get().uri("/v1/stats").headers(h -> h.setBearerAuth(TOKEN)).exchange()
                .expectStatus().isOk();
        assertThat(failures(AuthFailureCounter.Reason.BAD_TOKEN) - before).isEqualTo(LIMIT);
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
