/**
 * The fixed references a run measures beside the code under test, never built from it: the PostgreSQL-only ceiling
 * ({@link dev.dispatcher.load.reference.PgCeiling}), the naive one-row-at-a-time relay ({@link
 * dev.dispatcher.load.reference.NaiveRelay}) and the hand-written batching relay of {@code reference-latency} ({@link
 * dev.dispatcher.load.reference.ReferenceRelay}).
 */
package dev.dispatcher.load.reference;
