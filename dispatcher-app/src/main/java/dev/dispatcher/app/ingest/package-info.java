/**
 * Ingest: one request from its body to its stored rows ({@link dev.dispatcher.app.ingest.Ingest}). Parse and
 * validate, guard (the caller's {@link dev.dispatcher.app.ingest.TopicGrant}, the outbox backlog, the bytes and
 * requests held in memory), then group commit through lanes into the store. Returns a sealed
 * {@link dev.dispatcher.app.ingest.IngestResult} or fails with a sealed
 * {@link dev.dispatcher.app.ingest.IngestProblem}; knows nothing of HTTP, which the {@code api} package maps to
 * and from.
 */
package dev.dispatcher.app.ingest;
