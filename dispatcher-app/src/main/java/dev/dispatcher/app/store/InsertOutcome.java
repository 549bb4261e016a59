package dev.dispatcher.app.store;

/**
 * What {@link IngestStore#write} did with one message, decided by the statement that wrote it or found its id;
 * consumed with an exhaustive {@code switch}.
 */
public sealed interface InsertOutcome {

    /** The row this outcome is about: the one written, or the one that held the id already. */
    StoredEntry entry();

    /** A new row was written. */
    record Inserted(StoredEntry entry) implements InsertOutcome {
    }

    /** The id existed with the same content: nothing written. */
    record SameContent(StoredEntry entry) implements InsertOutcome {
    }

    /** The id existed with different content: nothing written. */
    record OtherContent(StoredEntry entry) implements InsertOutcome {
    }
}
