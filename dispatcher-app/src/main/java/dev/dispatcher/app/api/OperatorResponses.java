package dev.dispatcher.app.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.dispatcher.app.store.OperatorStore;
import java.util.List;

/** The response bodies of the operator endpoints (besides {@link MessageView}), as records, not maps. */
final class OperatorResponses {

    private OperatorResponses() {
    }

    /** {@code GET /v1/messages}: a page and the cursor of the next one (null at the end). */
    record Page(List<MessageView> items, String nextCursor) {
    }

    /**
     * {@code GET /v1/stats}: the figures of {@code source} (the one asked for), and a line for every source in
     * {@code sources} ({@code default} first).
     */
    record Stats(Backlog backlog, long backlogTotal, long deadLettered, long oldestLiveAgeMs, boolean relayPaused,
            String source, List<SourceStats> sources) {

        static Stats of(String source, OperatorStore.Stats stats, List<SourceStats> sources) {
            return new Stats(new Backlog(stats.backlog().pending(), stats.backlog().retryScheduled()),
                    stats.backlog().total(), stats.deadLettered(), stats.backlog().oldestAge().toMillis(),
                    stats.relayPaused(), source, sources);
        }
    }

    /**
     * One source's line of {@link Stats}; when its database did not answer in time, {@code available} is false
     * and the figures are null.
     */
    record SourceStats(String name, boolean available, Long backlogTotal, Long deadLettered, Long oldestLiveAgeMs,
            Boolean relayPaused) {

        static SourceStats of(String name, OperatorStore.Stats stats) {
            return new SourceStats(name, true, stats.backlog().total(), stats.deadLettered(),
                    stats.backlog().oldestAge().toMillis(), stats.relayPaused());
        }

        static SourceStats unavailable(String name) {
            return new SourceStats(name, false, null, null, null, null);
        }
    }

    /** Live rows by status, keyed by the status names. */
    record Backlog(@JsonProperty("PENDING") long pending, @JsonProperty("RETRY_SCHEDULED") long retryScheduled) {
    }

    /** {@code POST /v1/dead-letters/replay}: how many were replayed and their ids, oldest first. */
    record BulkReplay(int replayed, List<String> ids) {
    }

    /** {@code POST /v1/relay/pause|resume}: the switch now and before. */
    record RelaySwitch(boolean relayPaused, boolean wasPaused) {
    }
}
