package dev.dispatcher.app.store;

import java.time.Instant;
import java.util.UUID;

/** The outbox row an ingest wrote or found: what an ingest answers with. */
public record StoredEntry(UUID id, long seq, String status, long version, Instant createdAt) {
}
