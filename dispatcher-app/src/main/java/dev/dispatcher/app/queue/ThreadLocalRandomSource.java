package dev.dispatcher.app.queue;

import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * A random source that is safe to share across threads: every draw goes to the calling thread's own
 * {@link ThreadLocalRandom}. Retry jitter is drawn wherever a batch's transitions are decided, on several threads at
 * once; {@code RandomGenerator.getDefault()} returns a generator that is not thread-safe. Tests inject a seeded
 * generator instead.
 */
public final class ThreadLocalRandomSource implements RandomGenerator {

    /** The one instance; it has no state of its own. */
    public static final RandomGenerator INSTANCE = new ThreadLocalRandomSource();

    private ThreadLocalRandomSource() {
    }

    @Override
    public long nextLong() {
        return ThreadLocalRandom.current().nextLong();
    }

    @Override
    public long nextLong(long bound) {
        return ThreadLocalRandom.current().nextLong(bound);
    }
}
