package dev.dispatcher.load.mode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dispatcher.app.config.IngestProperties;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostileTest {

    @Test
    void theFullRunTakesIssueFiftysAttacksAndLeavesTheServicesBodyTimeout() {
        Hostile hostile = (Hostile) BenchMode.parse("hostile");

        assertThat(hostile.producers()).isEqualTo(16);
        assertThat(hostile.window()).hasSeconds(20);
        assertThat(hostile.warmup()).as("a round, repeated until the compiler settles").hasSeconds(10);
        assertThat(hostile.quick()).isFalse();
        assertThat(hostile.slowBodies()).isEqualTo(8);
        assertThat(hostile.slowByteEvery()).isEqualTo(Duration.ofSeconds(5));
        assertThat(hostile.bodyTimeout()).as("not put on the service's command line").isNull();
        assertThat(hostile.effectiveBodyTimeout()).isEqualTo(IngestProperties.DEFAULT_BODY_TIMEOUT).hasSeconds(10);
        assertThat(hostile.bombs()).isEqualTo(7);
        assertThat(hostile.bombItems()).isEqualTo(2_800_000);
        assertThat(hostile.healthClients()).isEqualTo(200);
        assertThat(hostile.guesses()).isEqualTo(10);
        assertThat(hostile.serviceArgs()).isEmpty();
        assertThat(hostile.servers()).isEqualTo(Servers.EMBEDDED);
    }

    @Test
    void quickShortensTheWindowsAndTheBodyTimeoutButKeepsTheAttackersCounts() {
        Hostile quick = (Hostile) BenchMode.parse("hostile", "--quick");

        assertThat(quick.window()).hasSeconds(Hostile.QUICK_WINDOW_S);
        assertThat(quick.warmup()).hasSeconds(Hostile.QUICK_WARMUP_S);
        assertThat(quick.bodyTimeout()).isEqualTo(Duration.ofMillis(Hostile.QUICK_BODY_TIMEOUT_MS));
        assertThat(quick.slowByteEvery()).isEqualTo(Duration.ofMillis(Hostile.QUICK_SLOW_BYTE_MS));
        assertThat(quick.quick()).as("one warm-up round").isTrue();
        assertThat(quick.slowBodies()).isEqualTo(8);
        assertThat(quick.bombs()).isEqualTo(7);
        assertThat(quick.healthClients()).isEqualTo(200);
    }

    @Test
    void everyOptionIsReadAndABodyTimeoutGivenIsPassedOn() {
        Hostile hostile = (Hostile) BenchMode.parse("hostile", "--producers", "4", "--window-s", "30", "--warmup-s",
                "0", "--slow-bodies", "2", "--slow-byte-ms", "1000", "--body-timeout-ms", "3000", "--bombs", "1",
                "--bomb-items", "1000", "--health-clients", "50", "--guesses", "3", "--service-args",
                "--dispatcher.ingest.writers=2", "--bootstrap", "127.0.0.1:19092");

        assertThat(hostile).isEqualTo(new Hostile(4, Duration.ofSeconds(30), Duration.ZERO, 2,
                Duration.ofSeconds(1), Duration.ofSeconds(3), 1, 1000, 50, 3, List.of("--dispatcher.ingest.writers=2"),
                new Servers(null, Servers.DEFAULT_USER, Servers.DEFAULT_USER, "127.0.0.1:19092"), false));
        assertThat(hostile.effectiveBodyTimeout()).hasSeconds(3);
    }

    @Test
    void badValuesAreRefusedNamingTheOption() {
        assertThatThrownBy(() -> BenchMode.parse("hostile", "--bomb-items", "3000000"))
                .hasMessage("--bomb-items must be a whole number between 1 and 2800000, but was '3000000'");
        assertThatThrownBy(() -> BenchMode.parse("hostile", "--body-timeout-ms", "50"))
                .hasMessageStartingWith("--body-timeout-ms must be a whole number between 100 and");
        assertThatThrownBy(() -> BenchMode.parse("hostile", "--n", "5"))
                .hasMessageStartingWith("hostile does not take --n; its options:");
    }
}
