package dev.dispatcher.app.config;

import dev.dispatcher.app.observe.PeriodicPass;
import dev.dispatcher.app.store.PlannerStatistics;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs {@link PlannerStatistics#refresh()} every {@link PlannerStatistics#EVERY} while the service runs, from
 * before the relay and the inbox start until after they stop. A failed pass is logged and the next one runs as usual.
 */
final class PlannerStatisticsLifecycle implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PlannerStatisticsLifecycle.class);

    private final PeriodicPass periodic;
    private volatile boolean running;

    PlannerStatisticsLifecycle(PlannerStatistics statistics) {
        this.periodic = new PeriodicPass(() -> statistics.refresh().then(),
                e -> log.warn("refreshing the queue tables' planner statistics failed: {}", e.toString()));
    }

    @Override
    public void start() {
        periodic.start(Duration.ZERO, PlannerStatistics.EVERY);
        running = true;
    }

    @Override
    public void stop() {
        periodic.stop();
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
