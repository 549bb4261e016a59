package dev.dispatcher.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Status;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

class KafkaHealthIndicatorTest {

    @Test
    void unreachableBrokerIsReportedDownWithinTheTimeoutWithoutBlockingTheCaller() {
        try (KafkaHealthIndicator indicator = new KafkaHealthIndicator(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1"), Duration.ofMillis(500))) {
            // subscribed on a non-blocking thread: BlockHound fails the test if the check blocks there
            indicator.health().subscribeOn(Schedulers.parallel())
                    .as(StepVerifier::create)
                    .assertNext(health -> assertThat(health.getStatus()).isEqualTo(Status.DOWN))
                    .expectComplete()
                    .verify(Duration.ofSeconds(10));
        }
    }
}
