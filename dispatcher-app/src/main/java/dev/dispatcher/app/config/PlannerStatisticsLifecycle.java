package dev.dispatcher.app.config;

import dev.dispatcher.app.observe.PeriodicPass;
import dev.dispatcher.app.store.PlannerStatistics;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs {@link PlannerStatistics#refresh()} of every source every {@link PlannerStatistics#EVERY} while the service
 * runs, from before the relay and the inbox start until after they stop. A source's failed pass is logged and the
 * next one runs as usual; it never holds back another source's.
 */
final class PlannerStatisticsLifecycle implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PlannerStatisticsLifecycle.class);

    /** One pass per source: a source whose database hangs holds back only its own passes. */
    private final List<PeriodicPass> passes;
    private volatile boolean running;

    PlannerStatisticsLifecycle(List<PlannerStatistics> sources) {
        this.passes = sources.stream().map(statistics -> new PeriodicPass(() -> statistics.refresh().then(),
                e -> log.warn("refreshing the queue tables' planner statistics failed: {}", e.toString()))).toList();
    }

    @Override
    public void start() {
        passes.forEach(pass -> pass.start(Duration.ZERO, PlannerStatistics.EVERY));
        running = true;
    }

    @Override
    public void stop() {
        passes.forEach(PeriodicPass::stop);
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        // before the relay and the inbox (DEFAULT_PHASE - 100) start, after they stop
        return SmartLifecycle.DEFAULT_PHASE - 200;
    }
}
