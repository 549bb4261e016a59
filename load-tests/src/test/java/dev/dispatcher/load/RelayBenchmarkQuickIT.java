package dev.dispatcher.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The harness's quick mode, run in CI so it cannot rot: small N, seconds, same code paths as a full run. */
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

    @Test
    void quickDrainReportsEveryFieldAndLosesNothing() throws Exception {
        String result = RelayBenchmark.drain(env, BenchOptions.parse(new String[] {"drain", "--quick", "--n", "2000"}));

        assertThat(result).contains("\"name\":\"relay-drain\"", "\"pg_fsync\":true", "\"brokers\":1",
                "\"ordering\":\"per-key\"", "\"keys\":\"64\"", "\"payload_bytes\":256", "\"n\":2000");
        assertThat(number(result, "instances")).isEqualTo(1.0);
        assertThat(number(result, "msgs_per_s")).isPositive();
        assertThat(number(result, "baseline_msgs_per_s")).isPositive();
        assertThat(number(result, "pg_ceiling_msgs_per_s")).isPositive();
        assertThat(result).as("the reference runs before and after the drain, the higher counts")
                .containsPattern("\"pg_ceiling_runs\":\"\\d+ \\d+\"");
        String[] runs = result.replaceAll(".*\"pg_ceiling_runs\":\"([0-9 ]+)\".*", "$1").split(" ");
        assertThat(number(result, "pg_ceiling_msgs_per_s")).isCloseTo(
                Math.max(Double.parseDouble(runs[0]), Double.parseDouble(runs[1])), within(1.0));
        assertThat(number(result, "ratio_to_ceiling")).isPositive();
        assertThat(number(result, "lost")).isZero();
        assertThat(number(result, "duplicates")).isZero();
    }

    @Test
    void quickDrainWithAPoisonTopicAndAFailingKeyReportsEachRateBesideItsCleanOne() throws Exception {
        String result = RelayBenchmark.drain(env, BenchOptions.parse(new String[] {"drain", "--quick", "--n", "1280",
                "--baseline", "false", "--poison-topic", "--failing-key"}));

        assertThat(result).contains("\"name\":\"relay-drain\"", "\"n\":1280");
        assertThat(number(result, "msgs_per_s")).isPositive();
        assertThat(number(result, "poison_msgs_per_s")).isPositive();
        assertThat(number(result, "ratio_to_clean")).isPositive();
        assertThat(number(result, "failing_key_msgs_per_s")).isPositive();
        assertThat(number(result, "failing_key_clean_msgs_per_s")).isPositive();
        assertThat(number(result, "failing_key_ratio_to_clean")).isPositive();
        assertThat(number(result, "lost")).as("every timed row of every drain reached Kafka").isZero();
        assertThat(number(result, "duplicates")).isZero();
    }

    @Test
    void quickLatencyReportsPercentilesAndLosesNothing() throws Exception {
        String result = RelayBenchmark.latency(env, BenchOptions.parse(
                new String[] {"latency", "--quick", "--rate", "100", "--duration-s", "3"}));

        assertThat(result).contains("\"name\":\"relay-latency\"", "\"pg_fsync\":true");
        assertThat(number(result, "offered_per_s")).isPositive();
        assertThat(number(result, "p99_ms")).isGreaterThanOrEqualTo(number(result, "p50_ms"));
        assertThat(number(result, "max_ms")).isGreaterThanOrEqualTo(number(result, "p99_ms"));
        assertThat(number(result, "lost")).isZero();
    }

    @Test
    void quickReferenceLatencyRunsTheReferenceRelayInItsOwnJvmAndLosesNothing() throws Exception {
        String result = ReferenceLatency.run(env, BenchOptions.parse(
                new String[] {"reference-latency", "--quick", "--rate", "100", "--duration-s", "3"}));

        assertThat(result).contains("\"name\":\"relay-latency\"", "\"relay\":\"reference\"",
                "\"reference_loops\":1", "\"pg_fsync\":true");
        assertThat(number(result, "n")).isEqualTo(300.0);
        assertThat(number(result, "p99_ms")).isGreaterThanOrEqualTo(number(result, "p50_ms"));
        assertThat(number(result, "lost")).isZero();
        assertThat(number(result, "duplicates")).isZero();
    }

    @Test
    void quickInboxWebhookDrainCountsEffectsAtTheReceiverAndLosesNothing() throws Exception {
        String result = InboxBenchmark.run(env, BenchOptions.parse(
                new String[] {"inbox", "--quick", "--n", "1000", "--handler", "webhook", "--fail-every", "10"}));

        assertThat(result).contains("\"name\":\"inbox-drain\"", "\"pg_fsync\":true", "\"handler\":\"webhook\"");
        assertThat(number(result, "msgs_per_s")).isPositive();
        assertThat(number(result, "receiver_ceiling_per_s")).isPositive();
        assertThat(number(result, "lost")).isZero();
        assertThat(number(result, "duplicates")).isZero();
    }

    @Test
    void quickInboxSqlDrainHasOneEffectRowPerMessage() throws Exception {
        String result = InboxBenchmark.run(env, BenchOptions.parse(
                new String[] {"inbox", "--quick", "--n", "1000", "--handler", "sql"}));

        assertThat(result).contains("\"name\":\"inbox-drain\"", "\"handler\":\"sql\"");
        assertThat(number(result, "msgs_per_s")).isPositive();
        assertThat(number(result, "receiver_ceiling_per_s")).isPositive();
        assertThat(number(result, "lost")).isZero();
        assertThat(number(result, "duplicates")).isZero();
    }

    @Test
    void quickInboxPerKeyDrainBesideAFailingKeyIsTimedOnTheOtherKeysAgainstAReference() throws Exception {
        String result = InboxBenchmark.run(env, BenchOptions.parse(new String[] {"inbox", "--quick", "--n", "1000",
                "--handler", "webhook", "--ordering", "per-key", "--failing-key", "true"}));

        assertThat(result).contains("\"name\":\"inbox-drain\"", "\"ordering\":\"per-key\"", "\"failing_key\":true");
        assertThat(number(result, "n")).isLessThan(1000).isGreaterThan(900); // key-0's records are not measured
        assertThat(number(result, "reference_msgs_per_s")).isPositive();
        assertThat(number(result, "ratio_to_unfailed")).isPositive();
        assertThat(number(result, "lost")).isZero();
        assertThat(number(result, "duplicates")).isZero();
    }

    private static double number(String json, String field) {
        Matcher m = Pattern.compile("\"" + field + "\":(-?[0-9.]+)").matcher(json);
        assertThat(m.find()).as("field %s in %s", field, json).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
