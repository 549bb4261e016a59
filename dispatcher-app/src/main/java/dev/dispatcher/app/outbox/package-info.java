/**
 * The relay: pulls leased batches from the outbox, publishes them to Kafka with bounded concurrency, and writes
 * each batch's transitions in one statement, in the configured record format, publishing dead letters to the
 * dead-letter topic first when one is configured. Also the wake-up listener ({@code LISTEN/NOTIFY}), the cluster-wide
 * pause switch, and retention.
 */
package dev.dispatcher.app.outbox;
