package dev.dispatcher.load.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Warms running services up on drains shaped like the measured one, untimed: each round seeds a backlog while the
 * relay is paused (the cluster-wide switch), then resumes it and waits until no live row is left; rounds repeat until
 * the JVM under test has nearly stopped compiling ({@link JitWarmUp}). Each round publishes to a topic of its own, as
 * the measured drain does to its new topic (the producer's path for a topic without metadata then runs in the
 * warm-up, not in the measured drain).
 */
public final class ServiceWarmUp {

    private ServiceWarmUp() {
    }

    /** Pauses the relay cluster-wide through every service, so each of them stops claiming at once. */
    public static void pause(List<ServiceClient> services) throws IOException, InterruptedException {
        for (ServiceClient service : services) {
            service.pause();
        }
    }

    /** Resumes the relay cluster-wide through every service, so each of them claims again at once. */
    public static void resume(List<ServiceClient> services) throws IOException, InterruptedException {
        for (ServiceClient service : services) {
            service.resume();
        }
    }

    /**
     * Rounds of {@code rows} rows of {@code keyExpression} into {@code schema}'s outbox, to topics {@code
     * topicPrefix-1}, {@code -2}, ... (6 partitions, created), until {@code clock} says the JVM has settled.
     */
    public static JitWarmUp.Result rounds(BenchEnvironment env, List<ServiceClient> services,
            JitWarmUp.CompilationClock clock, String schema, String topicPrefix, String keyExpression,
            int payloadBytes, int rows) throws Exception {
        OutboxRows outbox = new OutboxRows(env);
        AtomicInteger round = new AtomicInteger();
        return JitWarmUp.untilCompiled("drain", clock, () -> {
            String topic = topicPrefix + "-" + round.incrementAndGet();
            env.createTopic(topic, 6);
            pause(services);
            outbox.insert(schema, topic, keyExpression, payloadBytes, rows);
        }, () -> {
            resume(services);
            if (!outbox.awaitNoBacklog(schema, Duration.ofMillis(100), Duration.ofMinutes(10),
                    Progress.of("warm-up round " + round.get()))) {
                throw new IllegalStateException("the warm-up round's backlog did not drain within 10 minutes");
            }
            return rows;
        }, JitWarmUp.MAX_ROUNDS);
    }
}
