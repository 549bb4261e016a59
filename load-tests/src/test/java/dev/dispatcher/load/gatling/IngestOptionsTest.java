package dev.dispatcher.load.gatling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class IngestOptionsTest {

    @Test
    void noOptionsTakeTheDocumentedDefaults() {
        IngestOptions o = IngestOptions.parse();

        assertThat(o.concurrency()).isEqualTo(32);
        assertThat(o.batchConcurrency()).isEqualTo(16);
        assertThat(o.duration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(o.warmup()).isEqualTo(Duration.ofSeconds(120));
        assertThat(o.ceiling()).isEqualTo(Duration.ofSeconds(15));
        assertThat(o.scenarios()).containsExactly(IngestLoad.Scenario.SINGLE, IngestLoad.Scenario.BATCH,
                IngestLoad.Scenario.REPLAY);
        assertThat(o.healthClients()).isEqualTo(200);
        assertThat(o.healthAddresses()).isEqualTo(1);
        assertThat(o.serviceJvmOptions()).isEmpty();
        assertThat(o.loadWarmup()).isEqualTo(Duration.ofSeconds(20));
        assertThat(o.drainRows()).isZero();
        assertThat(o.inboxRecords()).isZero();
    }

    @Test
    void theLoadGeneratorWarmsUpBeforeTheLaunchUnlessTurnedOff() {
        assertThat(IngestOptions.parse("--quick").loadWarmup()).isEqualTo(Duration.ofSeconds(5));
        assertThat(IngestOptions.parse("--quick", "--load-warmup", "0").loadWarmup()).isZero();
        assertThat(IngestOptions.parse("--drain-rows", "100000").drainRows()).isEqualTo(100_000);
        assertThatThrownBy(() -> IngestOptions.parse("--load-warmup", "-1"))
                .hasMessage("--load-warmup must be a whole number, 0 or more, but was '-1'");
    }

    @Test
    void theTrainingRunTakesInboxRoundsOfRecords() {
        IngestOptions o = IngestOptions.parse("--drain-rows", "100000", "--inbox-records", "50000");

        assertThat(o.drainRows()).isEqualTo(100_000);
        assertThat(o.inboxRecords()).isEqualTo(50_000);
        assertThat(IngestOptions.parse("--inbox-records", "0").inboxRecords()).isZero();
        assertThatThrownBy(() -> IngestOptions.parse("--inbox-records", "-5"))
                .hasMessage("--inbox-records must be a whole number, 0 or more, but was '-5'");
        assertThatThrownBy(() -> IngestOptions.parse("--inbox-records", "many"))
                .hasMessage("--inbox-records must be a whole number, 0 or more, but was 'many'");
    }

    @Test
    void theHealthFloodTakesItsCallersAndTheirAddresses() {
        IngestOptions o = IngestOptions.parse("--scenarios", "single,health-flood", "--health-clients", "200",
                "--health-addresses", "200", "--service-jvm-options", "-Xmx1g -XX:+UseZGC");

        assertThat(o.scenarios()).containsExactly(IngestLoad.Scenario.SINGLE, IngestLoad.Scenario.HEALTH_FLOOD);
        assertThat(o.healthAddresses()).isEqualTo(200);
        assertThat(o.serviceJvmOptions()).isEqualTo(List.of("-Xmx1g", "-XX:+UseZGC"));
    }

    @Test
    void badOptionsAreRefusedNamingThem() {
        assertThatThrownBy(() -> IngestOptions.parse("--health-addresses", "255"))
                .hasMessage("--health-addresses must be at most 254, but was '255'");
        assertThatThrownBy(() -> IngestOptions.parse("--health-addresses", "0"))
                .hasMessage("--health-addresses must be at least 1, but was 0");
        assertThatThrownBy(() -> IngestOptions.parse("--scenarios", "replay,single"))
                .hasMessageStartingWith("--scenarios: replay repeats the ids of a single run");
        assertThatThrownBy(() -> IngestOptions.parse("--rate", "5")).hasMessageStartingWith("unknown option '--rate'");
    }
}
