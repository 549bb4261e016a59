/**
 * The HTTP API: ingest ({@code POST /v1/messages}, {@code /v1/messages/batch}, taken by the ingest package and
 * answered by {@link dev.dispatcher.app.api.IngestResponder}, also on the single-message fast path), operator reads
 * and mutations
 * ({@code /v1/messages/**}, {@code /v1/dead-letters/replay}, {@code /v1/stats}, {@code /v1/relay/pause|resume},
 * an inbox consumer's dead letters under {@code /v1/inbox/{consumer}/}),
 * RFC 9457 problem details, and the WebFlux security that guards them (HTTP Basic users, SHA-256 API tokens,
 * JWTs when a decoder is configured). Paths and payloads are fixed by docs/http-api.md (docs/contract.md).
 */
package dev.dispatcher.app.api;
