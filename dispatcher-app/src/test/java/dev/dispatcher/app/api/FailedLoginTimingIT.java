package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * A wrong password costs the same whether the user name exists or not, so answer times do not tell which names
 * exist: {@value #PAIRS} pairs of refused sign-ins, a known name ({@code demo}, a real bcrypt hash) and an unknown
 * one, interleaved so both see the same load, compared by their medians.
 */
class FailedLoginTimingIT extends ApiTestSupport {

    static final int WARM_UP = 10;
    static final int PAIRS = 101;

    @Test
    void theMedian401OfAKnownAndOfAnUnknownNameAreWithinTwentyPercent() {
        WebTestClient demo = http.mutate().defaultHeaders(h -> h.setBasicAuth(DEMO_USER, "wrong-password")).build();
        WebTestClient nobody = http.mutate().defaultHeaders(h -> h.setBasicAuth("nosuchuser", "wrong-password"))
                .build();
        for (int i = 0; i < WARM_UP; i++) {
            refusedNanos(demo);
            refusedNanos(nobody);
        }
        long[] known = new long[PAIRS];
        long[] unknown = new long[PAIRS];
        for (int i = 0; i < PAIRS; i++) {
            // alternate which goes first, so neither always follows the other
            if (i % 2 == 0) {
                known[i] = refusedNanos(demo);
                unknown[i] = refusedNanos(nobody);
            } else {
                unknown[i] = refusedNanos(nobody);
                known[i] = refusedNanos(demo);
            }
        }
        double knownMs = median(known) / 1e6;
        double unknownMs = median(unknown) / 1e6;

        System.out.printf("median 401: known %.1f ms, unknown %.1f ms%n", knownMs, unknownMs);
        assertThat(Math.abs(knownMs - unknownMs)).as("known %.1f ms against unknown %.1f ms", knownMs, unknownMs)
                .isLessThanOrEqualTo(0.2 * Math.max(knownMs, unknownMs));
    }

    private static long refusedNanos(WebTestClient client) {
        long started = System.nanoTime();
        client.get().uri("/v1/stats").exchange().expectStatus().isUnauthorized().expectBody().returnResult();
        return System.nanoTime() - started;
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
