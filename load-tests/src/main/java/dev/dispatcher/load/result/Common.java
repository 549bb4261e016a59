package dev.dispatcher.load.result;

/**
 * The fields every relay benchmark's RESULT carries (docs/benchmarks.md), unwrapped into it.
 *
 * @param pgFsync whether PostgreSQL committed durably (fsync and synchronous_commit on)
 * @param brokers Kafka brokers
 * @param ordering {@code per-key} or {@code none}
 * @param keys the {@code --keys} of the seeded rows ({@code 64}, {@code hot}, ...)
 * @param payloadBytes each payload's size
 * @param warmupN rows drained untimed before measuring, over all warm-up rounds
 * @param warmupRounds warm-up rounds run (each of {@code --warmup} rows; rounds repeat until the JVM under test has
 *     nearly stopped compiling, at most 20)
 */
public record Common(boolean pgFsync, int brokers, String ordering, String keys, int payloadBytes, long warmupN,
        int warmupRounds) {

    /** One broker: the harness runs one, or is pointed at one. */
    public static final int BROKERS = 1;

    /** The common fields of a run on {@link #BROKERS} broker. */
    public static Common of(boolean pgFsync, String ordering, String keys, int payloadBytes, long warmupN,
            int warmupRounds) {
        return new Common(pgFsync, BROKERS, ordering, keys, payloadBytes, warmupN, warmupRounds);
    }
}
