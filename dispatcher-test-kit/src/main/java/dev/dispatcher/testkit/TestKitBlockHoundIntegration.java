package dev.dispatcher.testkit;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Tells BlockHound about the few blocking calls that are known to be harmless, registered through
 * {@code META-INF/services} so that every test JVM with the kit and BlockHound picks it up.
 *
 * <p>Each allowance names a method, never a whole class or thread, so genuine blocking in code under test is
 * still reported:
 * <ul>
 *   <li>{@code UUID.randomUUID} reads the seed of the shared {@code SecureRandom} from {@code /dev/urandom} once;
 *   <li>{@code SecureRandom.nextBytes} (the kit's schema suffixes, and TLS/driver nonces) may read the entropy
 *       source the same way;
 *   <li>class loading and service loading read jars on first use only;
 *   <li>Resilience4j's circuit breaker records a call under a lock held for a few counter updates;
 *   <li>Netty's adaptive allocator locks a buffer magazine for a moment when it grows;
 *   <li>cancelling a periodic Reactor task (a relay batch's lease-renewal interval) removes it from its
 *       executor's delay queue under that queue's lock. Reactor's own integration allows the same for one-shot
 *       tasks ({@code SchedulerTask} and {@code WorkerTask} {@code dispose}) but not for {@code
 *       PeriodicWorkerTask}; unallowed, the error surfaced inside a finished batch and left it unfinished.
 * </ul>
 * The kit's servers and proxy run on their own plain threads, which BlockHound does not watch.
 */
public final class TestKitBlockHoundIntegration implements BlockHoundIntegration {

  @Override
  public void applyTo(BlockHound.Builder builder) {
    builder
        .allowBlockingCallsInside("java.util.UUID", "randomUUID")
        .allowBlockingCallsInside("java.security.SecureRandom", "nextBytes")
        .allowBlockingCallsInside("java.lang.ClassLoader", "loadClass")
        .allowBlockingCallsInside("java.util.ServiceLoader$LazyClassPathLookupIterator", "parse")
        // Resilience4j's sliding window guards a few counters with a ReentrantLock held for nanoseconds, no I/O.
        .allowBlockingCallsInside("io.github.resilience4j.core.metrics.FixedSizeSlidingWindowMetrics", "record")
        // Netty 4.2's adaptive buffer allocator briefly write-locks a magazine when it grows the magazine group;
        // this is inside Netty's own event-loop allocation path, not I/O.
        .allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$Magazine", "free")
        // Cancelling a periodic task takes the delay queue's lock for one removal (see the class comment).
        .allowBlockingCallsInside("reactor.core.scheduler.PeriodicWorkerTask", "dispose")
        .allowBlockingCallsInside("reactor.core.scheduler.PeriodicSchedulerTask", "dispose");
  }
}
