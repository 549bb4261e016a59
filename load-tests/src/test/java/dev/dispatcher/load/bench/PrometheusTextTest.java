package dev.dispatcher.load.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class PrometheusTextTest {

    @Test
    void aTimersCountAndSumAddUpOverItsSeriesAndItsMaxIsTheHighest() {
        String exposition = """
                dispatcher_publish_latency_seconds_bucket{le="0.001"} 3
                dispatcher_publish_latency_seconds_count{topic="a"} 100
                dispatcher_publish_latency_seconds_sum{topic="a"} 0.5
                dispatcher_publish_latency_seconds_max{topic="a"} 0.02
                dispatcher_publish_latency_seconds_count{topic="b"} 300
                dispatcher_publish_latency_seconds_sum{topic="b"} 1.5
                dispatcher_publish_latency_seconds_max{topic="b"} 0.09
                dispatcher_commit_to_publish_seconds_count 7
                """;

        PrometheusText.Timer send = PrometheusText.timer(exposition, "dispatcher_publish_latency");

        assertThat(send.count()).isEqualTo(400);
        assertThat(send.meanMillis()).isCloseTo(5.0, within(1e-9));
        assertThat(send.maxMillis()).isCloseTo(90.0, within(1e-9));
        assertThat(PrometheusText.timer(exposition, "dispatcher_commit_to_publish").count()).isEqualTo(7);
    }

    @Test
    void aTimerWithoutRecordingsHasNoMean() {
        assertThat(PrometheusText.timer("", "dispatcher_publish_latency").meanMillis()).isZero();
    }

    @Test
    void heapInUseSumsTheHeapPoolsOnly() {
        String exposition = """
                jvm_memory_used_bytes{area="heap",id="G1 Eden Space"} 1.0E7
                jvm_memory_used_bytes{area="heap",id="G1 Old Gen"} 2000000.0
                jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 9.9E7
                """;

        assertThat(PrometheusText.heapUsedBytes(exposition)).isEqualTo(12_000_000L);
    }

    @Test
    void heapAfterGcIsMicrometersLiveDataSizeAndZeroWithoutIt() {
        String exposition = """
                # TYPE jvm_gc_live_data_size_bytes gauge
                jvm_gc_live_data_size_bytes 4.3960752E7
                jvm_gc_max_data_size_bytes 5.36870912E8
                """;

        assertThat(PrometheusText.liveDataBytes(exposition)).isEqualTo(43_960_752L);
        assertThat(PrometheusText.liveDataBytes("jvm_gc_max_data_size_bytes 5.0E8\n")).isZero();
    }
}
