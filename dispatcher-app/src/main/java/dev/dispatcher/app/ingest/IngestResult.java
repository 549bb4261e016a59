package dev.dispatcher.app.ingest;

import dev.dispatcher.app.store.InsertOutcome;
import dev.dispatcher.app.store.StoredEntry;
import java.util.List;

/**
 * What an ingest request did, once written; consumed with an exhaustive {@code switch}. A request refused before
 * or instead of its write fails with an {@link IngestProblem} instead.
 */
public sealed interface IngestResult {

    /** What happened to one message: the answer of a single-message request, and an item of a batch. */
    sealed interface Message extends IngestResult {

        /** The row written, or the one that held the message's id already. */
        StoredEntry entry();

        /** The message result of what the store did. */
        static Message of(InsertOutcome outcome) {
            return switch (outcome) {
                case InsertOutcome.Inserted inserted -> new Accepted(inserted.entry());
                case InsertOutcome.SameContent same -> new Duplicate(same.entry());
                case InsertOutcome.OtherContent other -> new Conflict(other.entry());
            };
        }
    }

    /** A new row was written. */
    record Accepted(StoredEntry entry) implements Message {
    }

    /** The id exists with the same content: nothing written. */
    record Duplicate(StoredEntry entry) implements Message {
    }

    /** The id exists with different content: nothing written. */
    record Conflict(StoredEntry entry) implements Message {
    }

    /** A batch: every item written or found by one statement, in request order. */
    record Batch(List<Message> items) implements IngestResult {

        public Batch {
            items = List.copyOf(items);
        }
    }
}
