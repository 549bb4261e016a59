package dev.dispatcher.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PromQlMetricNamesTest {

    @Test
    void namesAreFoundOutsideFunctionsLabelsRangesAndGroupings() {
        assertThat(PromQlMetricNames.of("histogram_quantile(0.99, sum by (le) (rate("
                + "dispatcher_publish_latency_seconds_bucket{queue=\"outbox\"}[$__rate_interval])))"))
                .containsExactly("dispatcher_publish_latency_seconds_bucket");
        assertThat(PromQlMetricNames.of("max by (instance) (resilience4j_circuitbreaker_state{name=\"kafka\", "
                + "state=~\"open|forced_open\"}) == 1 and on (instance) up > 1e3"))
                .containsExactly("resilience4j_circuitbreaker_state", "up");
        assertThat(PromQlMetricNames.of("sum without (le) (a_total) / ignoring(x) group_left(y) b_total offset 5m"))
                .containsExactly("a_total", "b_total");
    }
}
