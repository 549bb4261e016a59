package dev.dispatcher.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The service jar's memory bounds in CI, each on servers of its own: {@code overload} as the full run does it (300
 * concurrent 1 MiB posts, 256 MB heap, PostgreSQL frozen), with a 3 s ingest timeout so that it answers sooner; and a
 * short {@code large-drain} (60 rows of 2 MiB in a 512 MB heap, more than the relay's 64 MB in-flight bound).
 */
class LimitsQuickIT {

    @Test
    void aFrozenDatabaseUnderThreeHundredLargePostsAnswersEveryOneAndRecovers() throws Exception {
        String result;
        try (BenchEnvironment env = new BenchEnvironment()) {
            result = IngestOverload.run(env, BenchOptions.parse(new String[] {"overload",
                    "--service-args", "--dispatcher.ingest.timeout=3s"}));
        }

        assertThat(result).contains("\"name\":\"ingest-overload\"", "\"service_alive\":true",
                "\"service_jvm_options\":\"-Xmx256m\"");
        assertThat(number(result, "requests")).isEqualTo(300.0);
        assertThat(number(result, "unanswered")).as("every request answered: %s", result).isZero();
        java.util.List<String> statuses = Pattern.compile("\"status_(\\d+)\"").matcher(result).results()
                .map(m -> m.group(1)).toList();
        assertThat(statuses).as("only 503 or 429 while the database is frozen: %s", result).isNotEmpty()
                .allMatch(status -> status.equals("503") || status.equals("429"));
        assertThat(number(result, "oom_lines")).isZero();
        assertThat(number(result, "recovered_ms")).as("accepted again after the thaw").isNotNegative();
    }

    @Test
    void largePayloadsDrainWithinTheRelaysByteBound() throws Exception {
        String result;
        try (BenchEnvironment env = new BenchEnvironment()) {
            result = LargePayloadDrain.run(env, BenchOptions.parse(new String[] {"large-drain", "--quick"}));
        }

        assertThat(result).contains("\"name\":\"relay-large-payload\"", "\"payload_bytes\":2097152",
                "\"service_alive\":true");
        assertThat(number(result, "n")).isEqualTo(60.0);
        assertThat(number(result, "lost")).isZero();
        assertThat(number(result, "duplicates")).isZero();
        assertThat(number(result, "oom_lines")).isZero();
        assertThat(number(result, "peak_heap_used_bytes")).isPositive().isLessThan(512.0 * 1024 * 1024);
    }

    private static double number(String json, String field) {
        Matcher m = Pattern.compile("\"" + field + "\":(-?[0-9.]+)").matcher(json);
        assertThat(m.find()).as("field %s in %s", field, json).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
