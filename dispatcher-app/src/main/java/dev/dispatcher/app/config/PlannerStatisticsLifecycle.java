package dev.dispatcher.app.config;

import dev.dispatcher.app.observe.PeriodicPass;
import dev.dispatcher.app.store.PlannerStatistics;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Runs {@link PlannerStatistics#refresh()} of every source every {@link PlannerStatistics#EVERY} while the service
 * runs, from before the relay and the inbox start until after they stop. A source's failed pass is logged and the
 * next one runs as usual; it never holds back another source's.
 */
final class PlannerStatisticsLifecycle implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PlannerStatisticsLifecycle.class);

    private final PeriodicPass periodic;
    private volatile boolean running;

    PlannerStatisticsLifecycle(List<PlannerStatistics> sources) {
        // each source's pass on its own: a source that is down fails its own refresh only
        this.periodic = new PeriodicPass(() -> Flux.fromIterable(sources)
                        .flatMap(statistics -> statistics.refresh().then()
                                .onErrorResume(e -> {
                                    log.warn("refreshing the queue tables' planner statistics failed: {}",
                                            e.toString());
                                    return Mono.empty();
                                }))
                        .then(),
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
