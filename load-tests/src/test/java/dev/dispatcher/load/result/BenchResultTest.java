package dev.dispatcher.load.result;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The RESULT lines are a contract scripts parse (docs/contract.md): every field a mode printed before the results were
 * types, under the same name and in the same order, optional ones left out when absent.
 */
class BenchResultTest {

    private static final Common COMMON = Common.of(true, "per-key", "64", 256, 400_000, 20);

    @Test
    void theInProcessDrainRendersEveryFieldInItsOrder() {
        RelayDrain drain = RelayDrain.inProcess(COMMON, 100_000, 29314.2, 1083.0, 20_000, 65000.5, "65000 61000",
                27.1, 0.45, 0, 0, new RelayDrain.Isolation(3100.0, 0.97, 2900.0, 3000.0, 0.97),
                new RelayDrain.Settings(1000, 64, 4));

        assertThat(drain.line()).isEqualTo("RESULT {\"name\":\"relay-drain\",\"pg_fsync\":true,\"brokers\":1,"
                + "\"ordering\":\"per-key\",\"keys\":\"64\",\"payload_bytes\":256,\"warmup_n\":400000,"
                + "\"warmup_rounds\":20,\"n\":100000,\"instances\":1,\"msgs_per_s\":29314.2,"
                + "\"baseline_msgs_per_s\":1083.0,\"baseline_n\":20000,\"pg_ceiling_msgs_per_s\":65000.5,"
                + "\"pg_ceiling_runs\":\"65000 61000\",\"ratio_to_baseline\":27.1,\"ratio_to_ceiling\":0.45,"
                + "\"lost\":0,\"duplicates\":0,\"poison_msgs_per_s\":3100.0,\"ratio_to_clean\":0.97,"
                + "\"failing_key_msgs_per_s\":2900.0,\"failing_key_clean_msgs_per_s\":3000.0,"
                + "\"failing_key_ratio_to_clean\":0.97,\"batch_size\":1000,\"publish_concurrency\":64,"
                + "\"max_in_flight_batches\":4}");
    }

    @Test
    void isolationFieldsAreLeftOutWhenTheirDrainsDidNotRun() {
        RelayDrain drain = RelayDrain.inProcess(COMMON, 2000, 1.0, 0, 2000, 2.0, "2 1", 0, 0.5, 0, 0,
                RelayDrain.Isolation.NONE, new RelayDrain.Settings(1000, 64, 4));

        assertThat(drain.line()).doesNotContain("poison", "failing_key", "end_to_end", "curve", "service_jar")
                .contains("\"duplicates\":0,\"batch_size\":1000");
    }

    @Test
    void theServiceJarsDrainHasItsOwnFields() {
        RelayDrain drain = RelayDrain.serviceJar(COMMON, 300_000, 38877.0, 30000.0, 68616.0, "68616 60000", 0.57,
                0.03, 0, 0, new RelayDrain.Isolation(37000.0, 0.95, null, null, null), FreshStart.NONE);

        assertThat(drain.line()).isEqualTo("RESULT {\"name\":\"relay-drain\",\"pg_fsync\":true,\"brokers\":1,"
                + "\"ordering\":\"per-key\",\"keys\":\"64\",\"payload_bytes\":256,\"warmup_n\":400000,"
                + "\"warmup_rounds\":20,\"n\":300000,\"instances\":1,\"msgs_per_s\":38877.0,"
                + "\"end_to_end_msgs_per_s\":30000.0,\"baseline_msgs_per_s\":0.0,\"pg_ceiling_msgs_per_s\":68616.0,"
                + "\"pg_ceiling_runs\":\"68616 60000\",\"ratio_to_ceiling\":0.57,\"service_compiling_share\":0.03,"
                + "\"lost\":0,\"duplicates\":0,\"poison_msgs_per_s\":37000.0,\"ratio_to_clean\":0.95}");
    }

    @Test
    void theTwoSourceDrainAddsEachSourceTheSumTheFaultAndTheCostsOfOneMessage() {
        RelayDrain drain = RelayDrain.twoSources(COMMON, 100_000, 30000.0, 60000.0, 0.5, 0, 1000,
                new Sources(30000.0, 28000.0, 20000.0, 19000.0, 39000.0, 1.3, 27000.0, 0.9, 25.1, 58000.0,
                        new MessageCost(53.0, 116.5, 13.0, 1072.3, 0.004, 0.001)));

        assertThat(drain.line()).contains("\"n\":100000,\"instances\":1,\"msgs_per_s\":30000.0,")
                .endsWith("\"lost\":0,\"duplicates\":1000,\"service_jar\":true,\"source_a_msgs_per_s\":30000.0,"
                        + "\"source_b_msgs_per_s\":28000.0,\"both_a_msgs_per_s\":20000.0,\"both_b_msgs_per_s\":19000.0,"
                        + "\"sum_msgs_per_s\":39000.0,\"ratio_sum_to_best_alone\":1.3,\"fault_a_msgs_per_s\":27000.0,"
                        + "\"fault_ratio_to_alone\":0.9,\"fault_b_rejoin_s\":25.1,\"pg2_ceiling_msgs_per_s\":58000.0,"
                        + "\"pg_cpu_us_per_msg\":53.0,\"service_cpu_us_per_msg\":116.5,\"broker_cpu_us_per_msg\":13.0,"
                        + "\"wal_bytes_per_msg\":1072.3,\"statements_per_msg\":0.004,\"claims_per_msg\":0.001}");
        assertThat(RelayDrain.serviceJar(COMMON, 1, 1.0, 1.0, 1.0, "1 1", 1.0, 0.0, 0, 0, RelayDrain.Isolation.NONE,
                FreshStart.NONE).line()).as("absent from other runs").doesNotContain("source_a", "cpu_us", "sum_");
    }

    @Test
    void theServiceJarsFreshStartFollowsItsOtherFields() {
        RelayDrain drain = RelayDrain.serviceJar(COMMON, 300_000, 38877.0, 30000.0, 68616.0, "68616 60000", 0.57,
                0.03, 0, 0, RelayDrain.Isolation.NONE,
                new FreshStart(200_000, 6.4, 4.1, 9, 14000.0, 16000.0, "-XX:AOTCache=dispatcher.aot"));

        assertThat(drain.line()).endsWith("\"lost\":0,\"duplicates\":0,\"fresh_n\":200000,\"startup_s\":6.4,"
                + "\"startup_cpu_s\":4.1,\"time_to_80pct_s\":9,\"fresh_msgs_per_s\":14000.0,"
                + "\"fresh_steady_msgs_per_s\":16000.0,\"service_jvm_options\":\"-XX:AOTCache=dispatcher.aot\"}");
    }

    @Test
    void theOrderingComparisonFollowsTheDirectDrainAndAddsItsLostRows() {
        RelayDrain drain = RelayDrain.serviceJar(COMMON, 100_000, 8826.0, 8000.0, 20475.0, "13130 20475", 0.43,
                0.29, 0, 0, RelayDrain.Isolation.NONE, FreshStart.NONE).withOrderings(new RelayDrain.Orderings(
                        8900.0, 9005.0, 0.98, List.of(8900.0, 8700.0, 9100.0), List.of(9005.0, 9200.0, 8900.0),
                        List.of(0.99, 0.95, 1.02)), 2, 1);

        assertThat(drain.line()).contains("\"msgs_per_s\":8826.0,").endsWith("\"lost\":2,\"duplicates\":1,"
                + "\"per_key_pairs_msgs_per_s\":8900.0,\"across_topics_msgs_per_s\":9005.0,"
                + "\"ratio_to_across_topics\":0.98,\"per_key_pair_rates\":[8900.0,8700.0,9100.0],"
                + "\"across_topics_pair_rates\":[9005.0,9200.0,8900.0],\"pair_ratios_to_across_topics\":[0.99,0.95,"
                + "1.02]}");
        assertThat(drain.withPooler(new RelayDrain.Pooler(7000.0, 0.79, "PgBouncer 1.18.0"), 0, 0).line())
                .as("both extra drains, each under its own names")
                .contains("\"pooler_ratio_to_direct\":0.79", "\"ratio_to_across_topics\":0.98");
        assertThat(RelayDrain.serviceJar(COMMON, 1, 1.0, 1.0, 1.0, "1 1", 1.0, 0.0, 0, 0, RelayDrain.Isolation.NONE,
                FreshStart.NONE).line()).as("absent when not compared").doesNotContain("across_topics", "pair_");
    }

    @Test
    void aScaleCurveReportsItsLargestStepAndTheCurve() {
        RelayDrain curve = RelayDrain.curve(COMMON, 300_000, 4, 35380.0, 70000.0, 0.51, "1:41343 2:38430 4:35380",
                "1:300000 2:300000 4:300000", 0, 0, true);

        assertThat(curve.line()).isEqualTo("RESULT {\"name\":\"relay-drain\",\"pg_fsync\":true,\"brokers\":1,"
                + "\"ordering\":\"per-key\",\"keys\":\"64\",\"payload_bytes\":256,\"warmup_n\":400000,"
                + "\"warmup_rounds\":20,\"n\":300000,\"instances\":4,\"msgs_per_s\":35380.0,"
                + "\"baseline_msgs_per_s\":0.0,\"pg_ceiling_msgs_per_s\":70000.0,\"ratio_to_ceiling\":0.51,"
                + "\"curve\":\"1:41343 2:38430 4:35380\",\"applied_deliver_sums\":\"1:300000 2:300000 4:300000\","
                + "\"lost\":0,\"duplicates\":0,\"service_jar\":true}");
        assertThat(RelayDrain.curve(COMMON, 1, 1, 1, 1, 1, "1:1", "1:1", 0, 0, null).line())
                .doesNotContain("service_jar");
    }

    @Test
    void latencyReportsPercentilesAndWhatRelayedTheRows() {
        RelayLatency latency = new RelayLatency(COMMON, 300.0, 9000, 4.1, 6.0, 7.9, 16.0, 0, 0, null, null, null,
                null, null);

        assertThat(latency.line()).isEqualTo("RESULT {\"name\":\"relay-latency\",\"pg_fsync\":true,\"brokers\":1,"
                + "\"ordering\":\"per-key\",\"keys\":\"64\",\"payload_bytes\":256,\"warmup_n\":400000,"
                + "\"warmup_rounds\":20,\"offered_per_s\":300.0,\"n\":9000,\"p50_ms\":4.1,\"p95_ms\":6.0,"
                + "\"p99_ms\":7.9,\"max_ms\":16.0,\"lost\":0,\"duplicates\":0}");
        assertThat(latency.withServiceCompilingShare(0.02).line()).endsWith(",\"service_compiling_share\":0.02}");
        assertThat(latency.ofReference(2).line()).endsWith(",\"relay\":\"reference\",\"reference_loops\":2}");
        assertThat(latency.behind("PgBouncer 1.18.0").line()).endsWith(",\"pooler\":\"PgBouncer 1.18.0\"}");
    }

    @Test
    void theLatencyReportsTheRowsOwnTimesBesideTheConsumerSide() {
        RelayLatency latency = new RelayLatency(COMMON, 2000.0, 60_000, 30.0, 60.0, 90.0, 120.0, 0, 0, null, null,
                null, new RelayLatency.Delivered(60_000, 26.0, 50.0, 97.0, 110.0), null);

        assertThat(latency.line()).contains("\"p50_ms\":30.0,").endsWith(",\"lost\":0,\"duplicates\":0,"
                + "\"delivered_n\":60000,\"delivered_p50_ms\":26.0,\"delivered_p95_ms\":50.0,"
                + "\"delivered_p99_ms\":97.0,\"delivered_max_ms\":110.0}");
        assertThat(latency.withServiceCompilingShare(0.02).line()).contains("\"delivered_p99_ms\":97.0");
    }

    @Test
    void theScaleCurveAddsItsFreshStepsAndTheirLostRows() {
        RelayDrain curve = RelayDrain.curve(COMMON, 100_000, 2, 18000.0, 40000.0, 0.45, "1:18044 2:13689",
                "1:100000 2:100000", 0, 0, true).withFreshCurve(new RelayDrain.FreshCurve(100_000,
                "1:11073.0 2:3310.0", "1:12000.0 2:3500.0", "1:21 2:40", "1:6.4 2:9.8", 0.29), 1, 2);

        assertThat(curve.line()).contains("\"lost\":1,\"duplicates\":2,").endsWith("\"service_jar\":true,"
                + "\"fresh_n\":100000,\"fresh_curve\":\"1:11073.0 2:3310.0\","
                + "\"fresh_steady_curve\":\"1:12000.0 2:3500.0\",\"fresh_time_to_80pct_curve\":\"1:21 2:40\","
                + "\"fresh_startup_curve\":\"1:6.4 2:9.8\",\"fresh_ratio_to_one\":0.29}");
    }

    @Test
    void theSweepReportsItsBestCell() {
        assertThat(new RelaySweep(COMMON, 20_000, 1000, 64, 8, 7588.0, 0, 0).line()).isEqualTo(
                "RESULT {\"name\":\"relay-sweep\",\"pg_fsync\":true,\"brokers\":1,\"ordering\":\"per-key\","
                        + "\"keys\":\"64\",\"payload_bytes\":256,\"warmup_n\":400000,\"warmup_rounds\":20,"
                        + "\"n\":20000,\"batch_size\":1000,\"publish_concurrency\":64,\"max_in_flight_batches\":8,"
                        + "\"msgs_per_s\":7588.0,\"lost\":0,\"duplicates\":0}");
    }

    @Test
    void theInboxDrainKeepsItsNumericKeysAndItsOptionalParts() {
        InboxDrain webhook = new InboxDrain(true, 1, "none", 64, 256, 10_000, "webhook", 20_000, 4000.0, 4500.0,
                0.9, 0, 0, 16, 2, 0, true, new InboxDrain.FailingKey("records of the 63 keys that do not fail",
                        4100.0, 1.0), true, new InboxDrain.Poison(20_000, "COMPLETED", 0, 0, true, 0), null,
                FreshStart.NONE, null, 4200.0);

        assertThat(webhook.line()).isEqualTo("RESULT {\"name\":\"inbox-drain\",\"pg_fsync\":true,\"brokers\":1,"
                + "\"ordering\":\"none\",\"keys\":64,\"payload_bytes\":256,\"warmup_n\":10000,"
                + "\"handler\":\"webhook\",\"n\":20000,\"msgs_per_s\":4000.0,\"receiver_ceiling_per_s\":4500.0,"
                + "\"ratio_to_ceiling\":0.9,\"lost\":0,\"duplicates\":0,\"concurrency\":16,\"receiver_delay_ms\":2,"
                + "\"fail_every\":0,\"failing_key\":true,\"measured\":\"records of the 63 keys that do not fail\","
                + "\"reference_msgs_per_s\":4100.0,\"ratio_to_unfailed\":1.0,\"poison_key\":true,\"handled\":20000,"
                + "\"poison_state\":\"COMPLETED\",\"poison_partition\":0,\"poison_offset\":0,"
                + "\"poison_handled\":true,\"partitions_behind\":0,\"middle_half_msgs_per_s\":4200.0}");
        InboxDrain sql = new InboxDrain(true, 1, "none", 64, 256, 0, "sql", 1000, 1.0, 2.0, 0.5, 0, 0, 16, null,
                null, false, null, false, null, null, FreshStart.NONE, null, null);
        assertThat(sql.line()).endsWith("\"concurrency\":16,\"failing_key\":false,\"poison_key\":false}");
    }

    @Test
    void theServiceJarsInboxDrainAddsItsFreshStartAndItsRatio() {
        InboxDrain jar = new InboxDrain(true, 1, "none", 64, 256, 100_000, "webhook", 100_000, 2600.0, 6400.0, 0.41,
                0, 0, 16, 2, 0, false, null, false, null, true,
                new FreshStart(100_000, 6.4, 4.1, 21, 1900.0, 2500.0, ""), 0.39, null);

        assertThat(jar.line()).contains("\"msgs_per_s\":2600.0,\"receiver_ceiling_per_s\":6400.0,"
                + "\"ratio_to_ceiling\":0.41,").endsWith("\"poison_key\":false,\"service_jar\":true,"
                + "\"fresh_n\":100000,\"startup_s\":6.4,\"startup_cpu_s\":4.1,\"time_to_80pct_s\":21,"
                + "\"fresh_msgs_per_s\":1900.0,\"fresh_steady_msgs_per_s\":2500.0,\"service_jvm_options\":\"\","
                + "\"fresh_ratio_to_ceiling\":0.39}");
    }

    @Test
    void overloadAnswersByStatusAndProblemFollowTheUnanswered() {
        Map<Integer, Long> statuses = new TreeMap<>(Map.of(503, 280L, 429, 20L));
        Map<String, Long> problems = new TreeMap<>(Map.of("database-unavailable", 280L, "-", 20L));
        IngestOverload overload = new IngestOverload(Common.of(true, "per-key", "64", 1_048_576, 0, 0), 300, 300, 0,
                statuses, problems, 3100, 3050, 420, 0, true, "-Xmx256m");

        assertThat(overload.line()).isEqualTo("RESULT {\"name\":\"ingest-overload\",\"pg_fsync\":true,"
                + "\"brokers\":1,\"ordering\":\"per-key\",\"keys\":\"64\",\"payload_bytes\":1048576,"
                + "\"warmup_n\":0,\"warmup_rounds\":0,\"requests\":300,\"answered\":300,\"unanswered\":0,"
                + "\"status_429\":20,\"status_503\":280,\"problem__\":20,\"problem_database_unavailable\":280,"
                + "\"max_answer_ms\":3100,\"p99_answer_ms\":3050,\"recovered_ms\":420,\"oom_lines\":0,"
                + "\"service_alive\":true,\"service_jvm_options\":\"-Xmx256m\"}");
    }

    @Test
    void theLargePayloadDrainReportsItsMemory() {
        assertThat(new RelayLargePayload(Common.of(true, "per-key", "64", 2_097_152, 0, 0), 60, 12.5, 26.2, 0, 0,
                0, true, 300_000_000L, "-Xmx512m").line()).isEqualTo("RESULT {\"name\":\"relay-large-payload\","
                + "\"pg_fsync\":true,\"brokers\":1,\"ordering\":\"per-key\",\"keys\":\"64\","
                + "\"payload_bytes\":2097152,\"warmup_n\":0,\"warmup_rounds\":0,\"n\":60,\"msgs_per_s\":12.5,"
                + "\"mb_per_s\":26.2,\"lost\":0,\"duplicates\":0,\"oom_lines\":0,\"service_alive\":true,"
                + "\"peak_heap_used_bytes\":300000000,\"service_jvm_options\":\"-Xmx512m\"}");
    }

    @Test
    void gatlingIngestPutsEachScenariosFiguresAfterTheRatio() {
        GatlingIngest ingest = new GatlingIngest(7006.0, 9, 0, 0, 0, 0, 7800.0, 0.9, List.of(
                new GatlingIngest.Scenario("single", 7006.0, 7006.0, 9, 0.9, 0.5, 0.6),
                new GatlingIngest.Scenario("batch", 155.0, 15499.0, 120, 0.8, 0.2, 0.9)),
                new GatlingIngest.HealthFlood(200, 1, 0.95, 0, 0, 30000.0), 32, 16, 100, 30, 120,
                new GatlingIngest.FreshStart(6.4, 4.1, 8, 12, 3100.0, "-XX:AOTCache=dispatcher.aot"),
                "java -jar (own JVM)", true, 1, "per-key", 64, 150);

        assertThat(ingest.line()).isEqualTo("RESULT {\"name\":\"gatling-ingest\",\"req_per_s\":7006.0,\"p99_ms\":9,"
                + "\"failed\":0,\"lost\":0,\"duplicates\":0,\"unanswered\":0,\"pg_insert_ceiling_per_s\":7800.0,"
                + "\"ratio_to_ceiling\":0.9,\"single_req_per_s\":7006.0,\"single_msgs_per_s\":7006.0,"
                + "\"single_p99_ms\":9,\"single_service_cpu_cores\":0.9,\"single_loadgen_cpu_cores\":0.5,"
                + "\"single_pg_cpu_cores\":0.6,\"batch_req_per_s\":155.0,\"batch_msgs_per_s\":15499.0,"
                + "\"batch_p99_ms\":120,\"batch_service_cpu_cores\":0.8,\"batch_loadgen_cpu_cores\":0.2,"
                + "\"batch_pg_cpu_cores\":0.9,\"health_clients\":200,\"health_addresses\":1,"
                + "\"health_flood_ratio\":0.95,\"health_flood_failed\":0,\"health_flood_503\":0,"
                + "\"health_calls_per_s\":30000.0,"
                + "\"concurrency\":32,\"batch_concurrency\":16,\"batch_size\":100,\"duration_s\":30,"
                + "\"warmup_s\":120,\"service\":\"java -jar (own JVM)\",\"pg_fsync\":true,\"brokers\":1,"
                + "\"ordering\":\"per-key\",\"keys\":64,\"payload_bytes\":150,\"startup_s\":6.4,\"startup_cpu_s\":4.1,"
                + "\"first_answer_s\":8,\"time_to_80pct_s\":12,"
                + "\"fresh_steady_req_per_s\":3100.0,\"service_jvm_options\":\"-XX:AOTCache=dispatcher.aot\"}");
    }

    @Test
    void textIsEscapedAsJson() {
        RelayLargePayload odd = new RelayLargePayload(COMMON, 1, 1, 1, 0, 0, 0, true, 1, "-Dx=\"a b\"\\");

        assertThat(odd.line()).endsWith("\"service_jvm_options\":\"-Dx=\\\"a b\\\"\\\\\"}");
    }

    @Test
    void theSustainedRunRendersDesignsFieldsAndLeavesOutWhatItDidNotMeasure() {
        RelaySustained sustained = new RelaySustained(Common.of(true, "per-key", "64", 256, 0, 0), 10, 4998.2,
                4997.9, 31.5, 60, 2_700_000, 4, 600_000_000, 610_000_000, 80_000_000, 81_000_000, null, null,
                41_000_000, 42_000_000, 39_000_000, 0, 0, true);

        assertThat(sustained.line()).isEqualTo("RESULT {\"name\":\"relay-sustained\",\"pg_fsync\":true,"
                + "\"brokers\":1,\"ordering\":\"per-key\",\"keys\":\"64\",\"payload_bytes\":256,\"warmup_n\":0,"
                + "\"warmup_rounds\":0,\"minutes\":10,\"offered_per_s\":4998.2,\"delivered_per_s\":4997.9,"
                + "\"p99_ms\":31.5,\"retention_s\":60,\"deleted_rows\":2700000,\"reference_minute\":4,"
                + "\"table_bytes_first\":600000000,\"table_bytes_last\":610000000,\"index_bytes_first\":80000000,"
                + "\"index_bytes_last\":81000000,\"heap_after_gc_bytes_first\":41000000,"
                + "\"heap_after_gc_bytes_last\":42000000,\"heap_trough_bytes_last\":39000000,\"lost\":0,"
                + "\"duplicates\":0,\"flat\":true}");
    }

    @Test
    void theImageRunPutsTheImagesFiguresBesideTheJarsAndLeavesOutABuildItDidNotRun() {
        RelayImage built = new RelayImage(COMMON, 100_000, 2, 20500.0, 21000.0, 0.98, 6.1, 5.2,
                List.of(20500.0, 20400.0), List.of(21000.0, 20900.0), List.of(6.1, 6.0), List.of(5.2, 5.3),
                List.of(143, 143), List.of(143, 143), "localhost/dispatcher:bench", 200_000_000L, 9.5,
                "-XX:MaxRAMPercentage=75.0", 0, 0);
        RelayImage given = new RelayImage(COMMON, 1, 1, 1.0, 1.0, 1.0, 1.0, 1.0, List.of(1.0), List.of(1.0),
                List.of(1.0), List.of(1.0), List.of(137), List.of(143), "localhost/dispatcher:0.1.0", 1L, null, "", 0,
                0);

        assertThat(built.line()).isEqualTo("RESULT {\"name\":\"relay-image\",\"pg_fsync\":true,\"brokers\":1,"
                + "\"ordering\":\"per-key\",\"keys\":\"64\",\"payload_bytes\":256,\"warmup_n\":400000,"
                + "\"warmup_rounds\":20,\"n\":100000,\"rounds\":2,\"msgs_per_s\":20500.0,"
                + "\"jar_msgs_per_s\":21000.0,\"ratio_to_jar\":0.98,\"startup_s\":6.1,\"jar_startup_s\":5.2,"
                + "\"image_rounds\":[20500.0,20400.0],\"jar_rounds\":[21000.0,20900.0],"
                + "\"image_startup_rounds_s\":[6.1,6.0],\"jar_startup_rounds_s\":[5.2,5.3],"
                + "\"image_exits\":[143,143],\"jar_exits\":[143,143],\"image\":\"localhost/dispatcher:bench\","
                + "\"image_bytes\":200000000,\"image_build_s\":9.5,"
                + "\"service_jvm_options\":\"-XX:MaxRAMPercentage=75.0\",\"lost\":0,\"duplicates\":0}");
        assertThat(given.line()).doesNotContain("image_build_s").contains("\"image_exits\":[137]");
    }
}
