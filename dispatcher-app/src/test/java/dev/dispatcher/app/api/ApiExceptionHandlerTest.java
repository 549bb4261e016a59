package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.store.OperatorReadTimeout;
import io.r2dbc.spi.R2dbcTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import reactor.netty.channel.AbortedException;
import reactor.test.StepVerifier;

/** What the last-resort handler does with a client that is gone, and with a real failure. */
class ApiExceptionHandlerTest {

    private final ApiExceptionHandler handler = new ApiExceptionHandler();
    private final MockServerWebExchange exchange =
            MockServerWebExchange.from(MockServerHttpRequest.post("/v1/messages"));

    /** No 500 (and no WARN) for a connection the client closed: WebFlux drops the error quietly. */
    @Test
    void aClientThatClosedItsConnectionIsHandedBackToWebFlux() {
        AbortedException gone = new AbortedException("Connection has been closed BEFORE send operation");

        StepVerifier.create(handler.unexpected(gone, exchange))
                .expectErrorSatisfies(e -> assertThat(e).isSameAs(gone))
                .verify();
    }

    @Test
    void anyOtherFailureIsAProblem500NamingTheRequest() {
        StepVerifier.create(handler.unexpected(new IllegalStateException("boom"), exchange))
                .assertNext(answer -> {
                    assertThat(answer.getStatusCode().value()).isEqualTo(500);
                    assertThat(answer.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
                    assertThat(answer.getBody()).asString().contains(exchange.getRequest().getId());
                })
                .verifyComplete();
    }

    @Test
    void anOperatorReadCutByItsTimeoutIsA503AskingForANarrowerFilter() {
        OperatorReadTimeout cut = new OperatorReadTimeout(Duration.ofSeconds(5),
                new R2dbcTimeoutException("canceling statement due to statement timeout", "57014"));

        StepVerifier.create(handler.unexpected(cut, exchange))
                .assertNext(answer -> {
                    assertThat(answer.getStatusCode().value()).isEqualTo(503);
                    assertThat(answer.getHeaders().getFirst("Retry-After")).isEqualTo("2");
                    assertThat(answer.getBody()).asString().contains("database-timeout")
                            .contains("took longer than 5000 ms (dispatcher.operator.read-timeout)")
                            .contains("narrow it");
                })
                .verifyComplete();
    }
}
