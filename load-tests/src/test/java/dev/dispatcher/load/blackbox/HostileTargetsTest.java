package dev.dispatcher.load.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.load.result.IngestHostile;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class HostileTargetsTest {

    private static final IngestHostile.SlowBodies SLOW_HELD =
            new IngestHostile.SlowBodies(8, 10_000, 1000, "990 1010", 950, 0.95, "408:16", 10_020, 10_400);
    private static final IngestHostile.TokenBomb BOMB_HELD =
            new IngestHostile.TokenBomb(7, 8_400_001, 5.0, "4.0 6.0", 40.0, "413:700", 90);
    private static final IngestHostile.Probes PROBES_HELD = new IngestHostile.Probes(404, false, "401:10", 200);
    private static final IngestHostile.HealthFlood HEALTH_HELD =
            new IngestHostile.HealthFlood(200, 1000, "990 1010", 930, 0.93, "200:20 429:4000");

    @Test
    void aRunThatHoldsEveryTargetMissesNone() {
        assertThat(HostileTargets.missed(SLOW_HELD, BOMB_HELD, PROBES_HELD, HEALTH_HELD, 0)).isEmpty();
    }

    @Test
    void eachMissedTargetIsNamedByItsField() {
        assertThat(HostileTargets.missed(
                new IngestHostile.SlowBodies(8, 10_000, 1000, "990 1010", 800, 0.8, "408:8 none:8", 10_020, 40_000),
                new IngestHostile.TokenBomb(7, 8_400_001, 5.0, "4.0 6.0", 140.0, "408:1 413:18", 2409),
                new IngestHostile.Probes(200, true, "401:10", 429),
                new IngestHostile.HealthFlood(200, 1000, "990 1010", 360, 0.36, "429:240"), 3))
                .containsExactly("slow_ratio", "slow_body_ends", "slow_body_end_max_ms", "bomb_p99_ms",
                        "bomb_answers", "encoded_path_status", "encoded_path_paused", "user_status", "health_ratio",
                        "lost");
    }

    @Test
    void aSlowBodyEndingJustAfterTheTimeoutIsWithinTheSlack() {
        IngestHostile.SlowBodies late = new IngestHostile.SlowBodies(8, 10_000, 1000, "990 1010", 950, 0.95,
                "408:16", 10_020, 10_000 + HostileTargets.SLOW_END_SLACK_MS);

        assertThat(HostileTargets.missed(late, BOMB_HELD, PROBES_HELD, HEALTH_HELD, 0)).isEmpty();
    }

    @Test
    void aTokenBombIsThreeBytesAnEmptyObjectAndValidJson() {
        assertThat(new String(TokenBombs.body(3), StandardCharsets.US_ASCII)).isEqualTo("[{},{},{}]");
        assertThat(TokenBombs.body(2_800_000)).hasSize(8_400_001);
    }

    @Test
    void aTallyCountsByStatusAndTimesOnlyTheEnds() {
        StatusTally tally = new StatusTally();
        tally.add(408, 10_050);
        tally.add(408, 10_010);
        tally.add(StatusTally.NO_ANSWER, 12);
        tally.add(StatusTally.STILL_OPEN, 0);

        assertThat(tally.text()).isEqualTo("none:1 open:1 408:2");
        assertThat(tally.minMs()).isEqualTo(12);
        assertThat(tally.maxMs()).isEqualTo(10_050);
        assertThat(tally.total()).isEqualTo(4);
        assertThat(new StatusTally().text()).isEqualTo("-");
    }
}
