package dev.dispatcher.load.gatling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ingest benchmark's quick mode, run in CI so the harness cannot rot: the service jar built earlier in the same
 * build, started as its own process, a few seconds of each scenario (the health flood with 20 health clients), the
 * ceiling and the Kafka check.
 */
class IngestBenchmarkQuickIT {

    @Test
    void quickRunReportsEveryFieldAndLosesNothing() throws Exception {
        Map<String, Object> result = IngestBenchmark.run(new String[] {"--quick", "--scenarios",
                "single,batch,replay,health-flood", "--health-clients", "20"});

        assertThat(result).containsEntry("name", "gatling-ingest").containsEntry("pg_fsync", true)
                .containsEntry("service", "java -jar (own JVM)").containsKeys("p99_ms", "ratio_to_ceiling",
                        "batch_msgs_per_s", "replay_req_per_s", "keys", "payload_bytes", "brokers", "ordering");
        assertThat((double) result.get("req_per_s")).isPositive();
        assertThat((double) result.get("batch_msgs_per_s")).isPositive();
        assertThat((double) result.get("replay_req_per_s")).isPositive();
        assertThat((double) result.get("pg_insert_ceiling_per_s")).isPositive();
        assertThat(result).containsEntry("failed", 0L).containsEntry("lost", 0L).containsEntry("duplicates", 0L)
                .containsEntry("unanswered", 0L);
        // the health flood's smoke run: its figures are there, no ingest answer was a 503 (the ratio itself is
        // measured on a quiet machine)
        assertThat(result).containsEntry("health_clients", 20).containsEntry("health_flood_503", 0L)
                .containsEntry("health_flood_failed", 0L);
        assertThat((double) result.get("health_flood_ratio")).isPositive();
        assertThat((double) result.get("health_calls_per_s")).isPositive();
    }
}
