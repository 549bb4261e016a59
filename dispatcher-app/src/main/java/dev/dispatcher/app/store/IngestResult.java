package dev.dispatcher.app.store;

import java.time.Instant;
import java.util.UUID;

/** What an ingest did with one message; consumed with an exhaustive {@code switch}. */
public sealed interface IngestResult {

    /** The stored row this result is about. */
    StoredEntry entry();

    /** A new row was written. */
    record Accepted(StoredEntry entry) implements IngestResult {
    }

    /** The id exists with the same content: nothing written. */
    record Duplicate(StoredEntry entry) implements IngestResult {
    }

    /** The id exists with different content: nothing written. */
    record Conflict(StoredEntry entry) implements IngestResult {
    }

    /** The outbox row an ingest result refers to. */
    record StoredEntry(UUID id, long seq, String status, long version, Instant createdAt) {
    }
}
