package dev.dispatcher.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.mode.BenchMode;
import dev.dispatcher.load.result.BenchResult;
import dev.dispatcher.load.result.InboxDrain;
import dev.dispatcher.load.result.RelayDrain;
import dev.dispatcher.load.result.RelayLatency;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The harness's quick modes, run in CI so they cannot rot: small N, seconds, the same code paths as a full run, each
 * through {@link RelayBenchmark#run} as {@code main} dispatches it, the in-process service started through its
 * public entry point.
 */
class RelayBenchmarkQuickIT {

    private static BenchEnvironment env;

    @BeforeAll
    static void start() {
        env = new BenchEnvironment();
    }

    @AfterAll
    static void stop() {
        env.close();
    }

    private static BenchResult run(String... args) throws Exception {
        BenchResult result = RelayBenchmark.run(env, BenchMode.parse(args));
        System.out.println(result.line());
        return result;
    }

    @Test
    void quickDrainReportsEveryFieldAndLosesNothing() throws Exception {
        RelayDrain result = (RelayDrain) run("drain", "--quick", "--n", "2000");

        assertThat(result.line()).startsWith("RESULT {\"name\":\"relay-drain\",\"pg_fsync\":true,\"brokers\":1,"
                + "\"ordering\":\"per-key\",\"keys\":\"64\",\"payload_bytes\":256,\"warmup_n\":0,");
        assertThat(result.n()).isEqualTo(2000);
        assertThat(result.instances()).isEqualTo(1);
        assertThat(result.msgsPerS()).isPositive();
        assertThat(result.baselineMsgsPerS()).isPositive();
        assertThat(result.pgCeilingMsgsPerS()).isPositive();
        assertThat(result.pgCeilingRuns()).as("the reference runs before and after the drain, the higher counts")
                .matches("\\d+ \\d+");
        String[] runs = result.pgCeilingRuns().split(" ");
        assertThat(result.pgCeilingMsgsPerS()).isCloseTo(
                Math.max(Double.parseDouble(runs[0]), Double.parseDouble(runs[1])), within(1.0));
        assertThat(result.ratioToCeiling()).isPositive();
        assertThat(result.lost()).isZero();
        assertThat(result.duplicates()).isZero();
    }

    @Test
    void quickDrainWithAPoisonTopicAndAFailingKeyReportsEachRateBesideItsCleanOne() throws Exception {
        RelayDrain result = (RelayDrain) run("drain", "--quick", "--n", "1280", "--baseline", "false",
                "--poison-topic", "--failing-key");

        assertThat(result.n()).isEqualTo(1280);
        assertThat(result.msgsPerS()).isPositive();
        assertThat(result.isolation().poisonMsgsPerS()).isPositive();
        assertThat(result.isolation().ratioToClean()).isPositive();
        assertThat(result.isolation().failingKeyMsgsPerS()).isPositive();
        assertThat(result.isolation().failingKeyCleanMsgsPerS()).isPositive();
        assertThat(result.isolation().failingKeyRatioToClean()).isPositive();
        assertThat(result.line()).contains("\"poison_msgs_per_s\":", "\"failing_key_ratio_to_clean\":");
        assertThat(result.lost()).as("every timed row of every drain reached Kafka").isZero();
        assertThat(result.duplicates()).isZero();
    }

    @Test
    void quickLatencyReportsPercentilesAndLosesNothing() throws Exception {
        RelayLatency result = (RelayLatency) run("latency", "--quick", "--rate", "100", "--duration-s", "3");

        assertThat(result.line()).startsWith("RESULT {\"name\":\"relay-latency\",\"pg_fsync\":true,");
        assertThat(result.offeredPerS()).isPositive();
        assertThat(result.n()).isEqualTo(300);
        assertThat(result.p99Ms()).isGreaterThanOrEqualTo(result.p50Ms());
        assertThat(result.maxMs()).isGreaterThanOrEqualTo(result.p99Ms());
        assertThat(result.lost()).isZero();
        assertThat(result.delivered().deliveredN()).as("every measured row's delivered_at").isEqualTo(300);
        assertThat(result.delivered().deliveredP50Ms()).isPositive();
        assertThat(result.delivered().deliveredP99Ms()).isGreaterThanOrEqualTo(result.delivered().deliveredP50Ms());
        assertThat(result.delivered().deliveredMaxMs()).isGreaterThanOrEqualTo(result.delivered().deliveredP99Ms());
        assertThat(result.line()).contains("\"delivered_p99_ms\":");
    }

    @Test
    void quickReferenceLatencyRunsTheReferenceRelayInItsOwnJvmAndLosesNothing() throws Exception {
        RelayLatency result = (RelayLatency) run("reference-latency", "--quick", "--rate", "100", "--duration-s",
                "3");

        assertThat(result.line()).contains("\"name\":\"relay-latency\"", "\"relay\":\"reference\"",
                "\"reference_loops\":1", "\"pg_fsync\":true");
        assertThat(result.n()).isEqualTo(300);
        assertThat(result.p99Ms()).isGreaterThanOrEqualTo(result.p50Ms());
        assertThat(result.lost()).isZero();
        assertThat(result.duplicates()).isZero();
    }

    @Test
    void quickInboxWebhookDrainCountsEffectsAtTheReceiverAndLosesNothing() throws Exception {
        InboxDrain result = (InboxDrain) run("inbox", "--quick", "--n", "1000", "--handler", "webhook",
                "--fail-every", "10");

        assertThat(result.line()).contains("\"name\":\"inbox-drain\"", "\"pg_fsync\":true",
                "\"handler\":\"webhook\"", "\"keys\":64");
        assertThat(result.n()).isEqualTo(1000);
        assertThat(result.msgsPerS()).isPositive();
        assertThat(result.receiverCeilingPerS()).isPositive();
        assertThat(result.lost()).isZero();
        assertThat(result.duplicates()).isZero();
    }

    @Test
    void quickBlackBoxInboxStartsTheServiceJarOnAStandingBacklogAndLosesNothing() throws Exception {
        InboxDrain result = (InboxDrain) run("blackbox-inbox", "--quick", "--n", "500", "--warm-n", "200");

        assertThat(result.line()).contains("\"name\":\"inbox-drain\"", "\"service_jar\":true", "\"fresh_n\":500",
                "\"time_to_80pct_s\":", "\"handler\":\"webhook\"");
        assertThat(result.n()).as("the warm batch").isEqualTo(200);
        assertThat(result.warmupN()).as("the fresh batch before it").isEqualTo(500);
        assertThat(result.fresh().startupS()).as("the JVM's launch to healthy").isPositive();
        assertThat(result.fresh().timeTo80pctS()).as("counted from the launch, past the first effects").isPositive();
        assertThat(result.msgsPerS()).isPositive();
        assertThat(result.receiverCeilingPerS()).isPositive();
        assertThat(result.lost()).isZero();
        assertThat(result.duplicates()).isZero();
    }

    @Test
    void quickBlackBoxComparesBothOrderingsInTurnsAndLosesNothing() throws Exception {
        RelayDrain result = (RelayDrain) run("blackbox", "--quick", "--n", "300", "--compare-ordering", "--pairs",
                "2");

        assertThat(result.line()).contains("\"ordering\":\"per-key\"", "\"across_topics_msgs_per_s\":",
                "\"ratio_to_across_topics\":", "\"pair_ratios_to_across_topics\":[");
        RelayDrain.Orderings orderings = result.orderings();
        assertThat(orderings.perKeyPairRates()).hasSize(2).allSatisfy(rate -> assertThat(rate).isPositive());
        assertThat(orderings.acrossTopicsPairRates()).hasSize(2).allSatisfy(rate -> assertThat(rate).isPositive());
        assertThat(orderings.pairRatiosToAcrossTopics()).hasSize(2);
        assertThat(orderings.ratioToAcrossTopics()).isPositive();
        assertThat(result.lost()).as("every row of both services' drains reached Kafka").isZero();
        assertThat(result.duplicates()).isZero();
    }

    @Test
    void quickInboxSqlDrainHasOneEffectRowPerMessage() throws Exception {
        InboxDrain result = (InboxDrain) run("inbox", "--quick", "--n", "1000", "--handler", "sql");

        assertThat(result.handler()).isEqualTo("sql");
        assertThat(result.n()).isEqualTo(1000);
        assertThat(result.msgsPerS()).isPositive();
        assertThat(result.middleHalfMsgsPerS()).as("the rate between the 25% and 75% marks").isPositive();
        assertThat(result.receiverCeilingPerS()).isPositive();
        assertThat(result.lost()).isZero();
        assertThat(result.duplicates()).isZero();
    }

    @Test
    void quickInboxPerKeyDrainBesideAFailingKeyIsTimedOnTheOtherKeysAgainstAReference() throws Exception {
        InboxDrain result = (InboxDrain) run("inbox", "--quick", "--n", "1000", "--handler", "webhook",
                "--ordering", "per-key", "--failing-key", "true");

        assertThat(result.ordering()).isEqualTo("per-key");
        assertThat(result.failingKey()).isTrue();
        assertThat(result.n()).isLessThan(1000).isGreaterThan(900); // key-0's records are not measured
        assertThat(result.failing().referenceMsgsPerS()).isPositive();
        assertThat(result.failing().ratioToUnfailed()).isPositive();
        assertThat(result.lost()).isZero();
        assertThat(result.duplicates()).isZero();
    }
}
