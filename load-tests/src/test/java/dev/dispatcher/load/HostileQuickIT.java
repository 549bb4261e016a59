package dev.dispatcher.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.mode.BenchMode;
import dev.dispatcher.load.result.IngestHostile;
import org.junit.jupiter.api.Test;

/**
 * hostile's quick run in CI, on servers of its own: the service jar beside slow bodies, token bombs, an encoded
 * operator path, a guesser and a health flood, windows of 2 s and a 2 s body timeout. It checks that every phase
 * measured what it says and that the service held its functional lines (408, 413, no 2xx on the encoded path, the
 * user signed in, nothing lost); the rates' targets are for the full run on a quiet machine.
 */
class HostileQuickIT {

    @Test
    void everyAttackIsMeasuredBesideItsBaselineAndNoAcceptedMessageIsLost() throws Exception {
        IngestHostile result;
        try (BenchEnvironment env = new BenchEnvironment()) {
            result = (IngestHostile) RelayBenchmark.run(env, BenchMode.parse("hostile", "--quick"));
        }
        System.out.println(result.line());

        assertThat(result.line()).startsWith("RESULT {\"name\":\"ingest-hostile\",\"pg_fsync\":true,")
                .contains("\"body_timeout_ms\":2000", "\"service_jvm_options\":\"-Xmx512m\"");
        assertThat(result.serviceAlive()).isTrue();
        assertThat(result.slow().slowBaselineMsgsPerS()).isPositive();
        assertThat(result.slow().slowMsgsPerS()).isPositive();
        assertThat(result.slow().slowBodyEnds()).as("slow bodies end with 408: %s", result.line()).contains("408:");
        assertThat(result.bomb().bombBaselineP99Ms()).isPositive();
        assertThat(result.bomb().bombP99Ms()).isPositive();
        // refused by their size (413), or, on a loaded machine, by the quick run's 2 s body timeout (408)
        assertThat(result.bomb().bombAnswers()).as("token bombs refused: %s", result.line())
                .matches("(?:(?:400|408|413):\\d+ ?)+");
        assertThat(result.probes().encodedPathStatus() / 100).as("the encoded path: %s", result.line()).isNotEqualTo(2);
        assertThat(result.probes().encodedPathPaused()).isFalse();
        assertThat(result.probes().guesserAnswers()).matches("(401|429):\\d+( (401|429):\\d+)?");
        assertThat(result.probes().userStatus()).as("the user on another address").isEqualTo(200);
        assertThat(result.health().healthBaselineMsgsPerS()).isPositive();
        assertThat(result.health().healthMsgsPerS()).isPositive();
        assertThat(result.health().healthAnswers()).isNotEqualTo("-");
        assertThat(result.accepted()).isPositive();
        assertThat(result.lost()).as("every accepted message on Kafka: %s", result.line()).isZero();
        assertThat(result.duplicates()).isZero();
    }
}
