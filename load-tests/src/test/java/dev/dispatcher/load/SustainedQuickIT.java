package dev.dispatcher.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.mode.BenchMode;
import dev.dispatcher.load.result.RelaySustained;
import org.junit.jupiter.api.Test;

/**
 * relay-sustained's quick run in CI, on servers of its own: the service jar for one minute at a low rate with
 * retention on a one-second window, so its first pass (a minute after the service started) deletes rows within the
 * run.
 */
class SustainedQuickIT {

    @Test
    void aMinuteOfSteadyLoadIsDeliveredOnceAndRetentionDeletesDeliveredRows() throws Exception {
        RelaySustained result;
        try (BenchEnvironment env = new BenchEnvironment()) {
            result = (RelaySustained) RelayBenchmark.run(env, BenchMode.parse("relay-sustained", "--quick",
                    "--retention-s", "1"));
        }
        System.out.println(result.line());

        assertThat(result.line()).startsWith("RESULT {\"name\":\"relay-sustained\",\"pg_fsync\":true,\"brokers\":1,"
                + "\"ordering\":\"per-key\",\"keys\":\"64\",\"payload_bytes\":256,");
        assertThat(result.minutes()).isEqualTo(1);
        assertThat(result.offeredPerS()).isPositive();
        assertThat(result.deliveredPerS()).isPositive();
        assertThat(result.p99Ms()).isPositive();
        assertThat(result.lost()).as("every written id on Kafka: %s", result.line()).isZero();
        assertThat(result.duplicates()).isZero();
        assertThat(result.deletedRows()).as("retention's first pass (a minute after the service's start) deleted rows: %s",
                result.line())
                .isPositive();
        assertThat(result.tableBytesLast()).isPositive();
        assertThat(result.indexBytesLast()).isPositive();
        // the heap after GC stays 0 until a collection reclaims the old generation, which a minute may not see
        assertThat(result.heapAfterGcBytesLast()).as("the service's heap after GC, from its Prometheus endpoint")
                .isNotNegative();
        assertThat(result.heapTroughBytesLast()).as("the service's heap in use, from its Prometheus endpoint")
                .isPositive();
        assertThat(result.flat()).as("one minute is too short to judge").isNull();
    }
}
