package dev.dispatcher.load.gatling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ingest benchmark's quick mode, run in CI so the harness cannot rot: the service jar built earlier in the same
 * build, started as its own process, a few seconds of each scenario, the ceiling and the Kafka check.
 */
class IngestBenchmarkQuickIT {

    @Test
    void quickRunReportsEveryFieldAndLosesNothing() throws Exception {
        Map<String, Object> result = IngestBenchmark.run(new String[] {"--quick"});

        assertThat(result).containsEntry("name", "gatling-ingest").containsEntry("pg_fsync", true)
                .containsEntry("service", "java -jar (own JVM)").containsKeys("p99_ms", "ratio_to_ceiling",
                        "batch_msgs_per_s", "replay_req_per_s", "keys", "payload_bytes", "brokers", "ordering");
        assertThat((double) result.get("req_per_s")).isPositive();
        assertThat((double) result.get("batch_msgs_per_s")).isPositive();
        assertThat((double) result.get("replay_req_per_s")).isPositive();
        assertThat((double) result.get("pg_insert_ceiling_per_s")).isPositive();
        assertThat(result).containsEntry("failed", 0L).containsEntry("lost", 0L).containsEntry("duplicates", 0L)
                .containsEntry("unanswered", 0L);
    }
}
