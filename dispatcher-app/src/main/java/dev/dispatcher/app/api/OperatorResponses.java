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

    /** {@code GET /v1/stats}. */
    record Stats(Backlog backlog, long backlogTotal, long deadLettered, long oldestLiveAgeMs, boolean relayPaused) {

        static Stats of(OperatorStore.Stats stats) {
            return new Stats(new Backlog(stats.backlog().pending(), stats.backlog().retryScheduled()),
                    stats.backlog().total(), stats.deadLettered(), stats.backlog().oldestAge().toMillis(),
                    stats.relayPaused());
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
