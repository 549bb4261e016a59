package dev.dispatcher.app.config;

import static dev.dispatcher.app.config.PropertyRules.orDefault;
import static dev.dispatcher.app.config.PropertyRules.requireBetween;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * {@code dispatcher.operator.*}: bounds on what the operator API's reads may cost the database they share with ingest
 * and the relay.
 *
 * @param readTimeout the longest one page of an operator listing ({@code GET /v1/messages}, an inbox consumer's dead
 *     letters) may run in PostgreSQL (100ms..10m): a read that runs out is cancelled by the server
 *     ({@code SET LOCAL statement_timeout} in its own transaction, which also holds behind a transaction pooler) and
 *     answered 503 ({@code database-timeout}) asking for a narrower filter, so a filter no index serves cannot hold a
 *     pooled connection longer than this
 */
public record OperatorProperties(@Nullable Duration readTimeout) {

    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(5);

    /** Validates; an absent value takes its default. */
    public OperatorProperties {
        readTimeout = orDefault(readTimeout, DEFAULT_READ_TIMEOUT);
        requireBetween("operator.read-timeout", readTimeout, Duration.ofMillis(100), Duration.ofMinutes(10));
    }

    public static OperatorProperties defaults() {
        return new OperatorProperties(null);
    }
}
