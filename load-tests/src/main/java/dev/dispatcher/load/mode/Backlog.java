package dev.dispatcher.load.mode;

/**
 * The rows a drain seeds: {@code --n} rows of {@code --payload-bytes} each on {@code --keys}.
 *
 * @param n rows
 * @param keys their keys
 * @param payloadBytes each payload's size
 */
public record Backlog(int n, Keys keys, int payloadBytes) {

    /** {@code --payload-bytes} when absent, for the relay and inbox modes. */
    public static final int DEFAULT_PAYLOAD_BYTES = 256;
    /** The largest {@code --n} any mode takes. */
    static final int MAX_N = 100_000_000;

    /** {@code --n} (default {@code n}), {@code --keys} and {@code --payload-bytes} (default {@code payloadBytes}). */
    static Backlog parse(Options o, int n, int payloadBytes) {
        return new Backlog(o.integer("n", n, 1, MAX_N), Keys.parse(o),
                o.integer("payload-bytes", payloadBytes, 1, 64 * 1024 * 1024));
    }
}
