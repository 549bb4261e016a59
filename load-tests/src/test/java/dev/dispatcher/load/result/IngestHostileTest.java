package dev.dispatcher.load.result;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IngestHostileTest {

    @Test
    void everyPhaseRendersItsFiguresBesideItsBaselineInOrder() {
        IngestHostile result = new IngestHostile(Common.of(true, "per-key", "64", 34, 0, 0), 16, 20,
                new IngestHostile.SlowBodies(8, 10_000, 1200.5, "1180.0 1221.0", 1100.0, 0.92, "408:16", 10_020,
                        10_400),
                new IngestHostile.TokenBomb(7, 8_400_001, 4.2, "4.0 4.4", 30.1, "413:700", 95),
                new IngestHostile.Probes(404, false, "401:10", 200),
                new IngestHostile.HealthFlood(200, 1300.0, "1290.0 1310.0", 1250.0, 0.96, "200:20 429:4000"),
                50_000, 0, 0, "none", true, "-Xmx512m");

        assertThat(result.line()).isEqualTo("RESULT {\"name\":\"ingest-hostile\",\"pg_fsync\":true,\"brokers\":1,"
                + "\"ordering\":\"per-key\",\"keys\":\"64\",\"payload_bytes\":34,\"warmup_n\":0,\"warmup_rounds\":0,"
                + "\"producers\":16,\"window_s\":20,\"slow_bodies\":8,\"body_timeout_ms\":10000,"
                + "\"slow_baseline_msgs_per_s\":1200.5,\"slow_baseline_runs\":\"1180.0 1221.0\","
                + "\"slow_msgs_per_s\":1100.0,\"slow_ratio\":0.92,"
                + "\"slow_body_ends\":\"408:16\",\"slow_body_end_min_ms\":10020,\"slow_body_end_max_ms\":10400,"
                + "\"bombs\":7,\"bomb_bytes\":8400001,\"bomb_baseline_p99_ms\":4.2,\"bomb_baseline_runs\":\"4.0 4.4\","
                + "\"bomb_p99_ms\":30.1,\"bomb_answers\":\"413:700\",\"bomb_answer_max_ms\":95,"
                + "\"encoded_path_status\":404,\"encoded_path_paused\":false,\"guesser_answers\":\"401:10\","
                + "\"user_status\":200,\"health_clients\":200,\"health_baseline_msgs_per_s\":1300.0,"
                + "\"health_baseline_runs\":\"1290.0 1310.0\",\"health_msgs_per_s\":1250.0,\"health_ratio\":0.96,"
                + "\"health_answers\":\"200:20 429:4000\",\"accepted\":50000,\"lost\":0,\"duplicates\":0,"
                + "\"targets_missed\":\"none\",\"service_alive\":true,\"service_jvm_options\":\"-Xmx512m\"}");
    }
}
