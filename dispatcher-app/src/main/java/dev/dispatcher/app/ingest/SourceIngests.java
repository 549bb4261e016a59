package dev.dispatcher.app.ingest;

import dev.dispatcher.app.source.PerSource;
import dev.dispatcher.app.source.UnknownSourceException;
import java.util.List;

/**
 * The {@link Ingest} of each source: its own writer lanes on the source's pool and its own backlog guard (the
 * source's {@code dispatcher.ingest.max-backlog}), sharing the instance's limits and memory budget. {@link #start()}
 * and {@link #stop()} run the backlog checks of every source.
 */
public final class SourceIngests {

    private final PerSource<Ingest> ingests;
    private final List<BacklogGuard> guards;

    SourceIngests(PerSource<Ingest> ingests, List<BacklogGuard> guards) {
        this.ingests = ingests;
        this.guards = List.copyOf(guards);
    }

    /**
     * The ingest of the source named {@code source}.
     *
     * @throws UnknownSourceException if there is no such source
     */
    public Ingest of(String source) {
        return ingests.get(source);
    }

    /** The ingest of the {@code default} source ({@code /v1/messages}). */
    public Ingest defaultSource() {
        return ingests.defaultSource();
    }

    void start() {
        guards.forEach(BacklogGuard::start);
    }

    void stop() {
        guards.forEach(BacklogGuard::stop);
    }
}
