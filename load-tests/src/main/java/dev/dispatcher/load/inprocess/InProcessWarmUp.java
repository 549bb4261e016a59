package dev.dispatcher.load.inprocess;

import dev.dispatcher.load.bench.HarnessRelay;
import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.JitWarmUp;
import dev.dispatcher.load.bench.ServiceWarmUp;
import dev.dispatcher.load.mode.Ordering;
import dev.dispatcher.load.mode.RelayTuning;
import java.util.List;
import java.util.Locale;

/**
 * The in-process modes' warm-up: an in-process service on a schema of its own drains rounds of {@code --warmup}
 * rows, untimed, until this JVM has nearly stopped compiling ({@link ServiceWarmUp}); then it stops and its schema is
 * dropped, so that autovacuum does not work through the warm-up's rows while a later phase is measured. The measured
 * services run later in the same, warm JVM.
 */
final class InProcessWarmUp {

    private InProcessWarmUp() {
    }

    /** Rounds of {@code rows} rows (none when 0); returns what they drained. */
    static JitWarmUp.Result run(BenchEnvironment env, RelayTuning tuning, Ordering ordering, String keyExpression,
            int payloadBytes, int rows) throws Exception {
        if (rows == 0) {
            return JitWarmUp.Result.NONE;
        }
        String schema = env.serviceSchema("warm");
        JitWarmUp.Result warm;
        try (InProcessService service = InProcessService.start(env, schema,
                HarnessRelay.arguments(tuning, ordering), List.of())) {
            warm = ServiceWarmUp.rounds(env, List.of(service.client()), JitWarmUp.thisJvm(), schema, "bench-" + schema,
                    keyExpression, payloadBytes, rows);
        }
        env.drop(schema);
        System.out.printf(Locale.ROOT, "warm-up: %d messages in %d round(s) of %d (not reported)%n", warm.rows(),
                warm.rounds(), rows);
        return warm;
    }
}
