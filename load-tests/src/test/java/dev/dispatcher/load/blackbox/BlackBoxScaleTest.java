package dev.dispatcher.load.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.load.bench.PrometheusText;
import org.junit.jupiter.api.Test;

/** The scale curves sum each service's Applied Deliver counter from its Prometheus exposition. */
class BlackBoxScaleTest {

    @Test
    void sumsTheOutboxsAppliedDeliversOverEveryDurableStatusAndNothingElse() {
        String exposition = """
                # TYPE dispatcher_transition_attempts_total counter
                dispatcher_transition_attempts_total{application="dispatcher",durable_status="delivered",outcome="applied",queue="outbox",transition="deliver"} 1000.0
                dispatcher_transition_attempts_total{application="dispatcher",durable_status="delivered",outcome="terminal",queue="outbox",transition="deliver"} 7.0
                dispatcher_transition_attempts_total{application="dispatcher",durable_status="completed",outcome="applied",queue="inbox",transition="deliver"} 50.0
                dispatcher_transition_attempts_total{application="dispatcher",durable_status="pending",outcome="applied",queue="outbox",transition="renew"} 30.0
                dispatcher_transition_attempts_total{queue="outbox",transition="deliver",outcome="applied",durable_status="absent",} 2.0
                dispatcher_messages_total{queue="outbox",result="published"} 1002.0
                """;

        assertThat(PrometheusText.appliedDelivers(exposition)).isEqualTo(1_002L);
    }

    @Test
    void aServiceThatDeliveredNothingYetCountsZero() {
        assertThat(PrometheusText.appliedDelivers("jvm_compilation_time_ms_total 7.0\n")).isZero();
    }
}
