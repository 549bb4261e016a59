package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.result.IngestHostile;
import java.util.ArrayList;
import java.util.List;

/**
 * The targets of issue 50, judged on a hostile run's figures; each missed one is named by the RESULT field that
 * misses it.
 */
final class HostileTargets {

    /** The least ratio of a protected rate to its unprotected one. */
    static final double MIN_RATIO = 0.9;
    /** One producer's p99 during the token bombs must stay under this. */
    static final double MAX_BOMB_P99_MS = 100;
    /**
     * How much later than the body timeout a slow body may end, counted from its head (the service counts from its
     * admission, a little later): scheduling on a loaded machine, not a second chance.
     */
    static final long SLOW_END_SLACK_MS = 1_000;

    private HostileTargets() {
    }

    /** The RESULT fields whose targets the run missed, in the phases' order; empty when every one held. */
    static List<String> missed(IngestHostile.SlowBodies slow, IngestHostile.TokenBomb bomb,
            IngestHostile.Probes probes, IngestHostile.HealthFlood health, long lost) {
        List<String> missed = new ArrayList<>();
        if (slow.slowBodies() > 0) {
            if (slow.slowRatio() < MIN_RATIO) {
                missed.add("slow_ratio");
            }
            if (!slow.slowBodyEnds().matches("408:\\d+")) {
                missed.add("slow_body_ends");
            }
            if (slow.slowBodyEndMaxMs() < 0 || slow.slowBodyEndMaxMs() > slow.bodyTimeoutMs() + SLOW_END_SLACK_MS) {
                missed.add("slow_body_end_max_ms");
            }
        }
        if (bomb.bombs() > 0) {
            if (bomb.bombP99Ms() < 0 || bomb.bombP99Ms() >= MAX_BOMB_P99_MS) {
                missed.add("bomb_p99_ms");
            }
            if (!bomb.bombAnswers().matches("(400|413):\\d+( (400|413):\\d+)?")) {
                missed.add("bomb_answers");
            }
        }
        if (probes.encodedPathStatus() / 100 == 2) {
            missed.add("encoded_path_status");
        }
        if (probes.encodedPathPaused()) {
            missed.add("encoded_path_paused");
        }
        if (probes.userStatus() != 200) {
            missed.add("user_status");
        }
        if (health.healthClients() > 0 && health.healthRatio() < MIN_RATIO) {
            missed.add("health_ratio");
        }
        if (lost > 0) {
            missed.add("lost");
        }
        return missed;
    }
}
