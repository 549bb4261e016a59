package dev.dispatcher.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.mode.BenchMode;
import dev.dispatcher.load.result.IngestOverload;
import dev.dispatcher.load.result.RelayLargePayload;
import org.junit.jupiter.api.Test;

/**
 * The service jar's memory bounds in CI, each on servers of its own: {@code overload} as the full run does it (300
 * concurrent 1 MiB posts, 256 MB heap, PostgreSQL frozen), with a 3 s ingest timeout so that it answers sooner; and a
 * short {@code large-drain} (60 rows of 2 MiB in a 512 MB heap, more than the relay's 64 MB in-flight bound).
 */
class LimitsQuickIT {

    @Test
    void aFrozenDatabaseUnderThreeHundredLargePostsAnswersEveryOneAndRecovers() throws Exception {
        IngestOverload result;
        try (BenchEnvironment env = new BenchEnvironment()) {
            result = (IngestOverload) RelayBenchmark.run(env, BenchMode.parse("overload",
                    "--service-args", "--dispatcher.ingest.timeout=3s"));
        }
        System.out.println(result.line());

        assertThat(result.line()).contains("\"name\":\"ingest-overload\"", "\"service_alive\":true",
                "\"service_jvm_options\":\"-Xmx256m\"");
        assertThat(result.serviceAlive()).isTrue();
        assertThat(result.requests()).isEqualTo(300);
        assertThat(result.unanswered()).as("every request answered: %s", result.line()).isZero();
        assertThat(result.statuses()).as("only 503 or 429 while the database is frozen: %s", result.line())
                .isNotEmpty().allSatisfy((status, count) -> assertThat(status).isIn(503, 429));
        assertThat(result.line()).containsPattern("\"status_(503|429)\":\\d+");
        assertThat(result.oomLines()).isZero();
        assertThat(result.recoveredMs()).as("accepted again after the thaw").isNotNegative();
    }

    @Test
    void largePayloadsDrainWithinTheRelaysByteBound() throws Exception {
        RelayLargePayload result;
        try (BenchEnvironment env = new BenchEnvironment()) {
            result = (RelayLargePayload) RelayBenchmark.run(env, BenchMode.parse("large-drain", "--quick"));
        }
        System.out.println(result.line());

        assertThat(result.line()).contains("\"name\":\"relay-large-payload\"", "\"payload_bytes\":2097152",
                "\"service_alive\":true");
        assertThat(result.n()).isEqualTo(60);
        assertThat(result.lost()).isZero();
        assertThat(result.duplicates()).isZero();
        assertThat(result.oomLines()).isZero();
        assertThat(result.peakHeapUsedBytes()).isPositive().isLessThan(512L * 1024 * 1024);
    }
}
