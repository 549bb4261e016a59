package dev.dispatcher.load.gatling;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.load.result.GatlingIngest;
import org.junit.jupiter.api.Test;

/**
 * The ingest benchmark's quick mode, run in CI so the harness cannot rot: the service jar built earlier in the same
 * build, started as its own process, a few seconds of each scenario (the health flood with 20 health clients), the
 * ceiling and the Kafka check, then the AOT training run's untimed inbox round ({@code --inbox-records}), which
 * fails the run unless the receiver answered every record's id.
 */
class IngestBenchmarkQuickIT {

    @Test
    void quickRunReportsEveryFieldAndLosesNothing() throws Exception {
        GatlingIngest result = IngestBenchmark.run(IngestOptions.parse("--quick", "--scenarios",
                "single,batch,replay,health-flood", "--health-clients", "20", "--inbox-records", "1000"));
        System.out.println(result.line());

        assertThat(result.line()).startsWith("RESULT {\"name\":\"gatling-ingest\",").contains("\"pg_fsync\":true",
                "\"service\":\"java -jar (own JVM)\"", "\"p99_ms\":", "\"ratio_to_ceiling\":",
                "\"batch_msgs_per_s\":", "\"replay_req_per_s\":", "\"keys\":", "\"payload_bytes\":", "\"brokers\":",
                "\"ordering\":");
        assertThat(result.reqPerS()).isPositive();
        // the first answers come after the service is healthy, and the time to speed counts from the launch
        assertThat(result.freshStart().firstAnswerS()).isGreaterThanOrEqualTo((int) result.freshStart().startupS());
        assertThat(result.freshStart().timeTo80pctS()).isGreaterThan(result.freshStart().firstAnswerS());
        assertThat(result.scenarios()).extracting(GatlingIngest.Scenario::name)
                .containsExactly("single", "batch", "replay", "health_flood");
        assertThat(result.scenarios().get(1).msgsPerS()).as("batch").isPositive();
        assertThat(result.scenarios().get(2).reqPerS()).as("replay").isPositive();
        assertThat(result.pgInsertCeilingPerS()).isPositive();
        assertThat(result.failed()).isZero();
        assertThat(result.lost()).isZero();
        assertThat(result.duplicates()).isZero();
        assertThat(result.unanswered()).isZero();
        // the health flood's smoke run: its figures are there, no ingest answer was a 503 (the ratio itself is
        // measured on a quiet machine)
        assertThat(result.healthFlood().healthClients()).isEqualTo(20);
        assertThat(result.healthFlood().healthAddresses()).isEqualTo(IngestOptions.DEFAULT_HEALTH_ADDRESSES);
        assertThat(result.healthFlood().healthFlood503()).isZero();
        assertThat(result.healthFlood().healthFloodFailed()).isZero();
        assertThat(result.healthFlood().healthFloodRatio()).isPositive();
        assertThat(result.healthFlood().healthCallsPerS()).isPositive();
    }
}
