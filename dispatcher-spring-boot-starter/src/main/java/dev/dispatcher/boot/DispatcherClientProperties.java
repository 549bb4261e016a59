package dev.dispatcher.boot;

import dev.dispatcher.client.JdbcOutboxWriter;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * What an application using the starter configures: where Dispatcher's tables are ({@code dispatcher.schema},
 * the same property as the service's) and {@code dispatcher.client.*}. Other {@code dispatcher.*} properties
 * belong to the service and are ignored here.
 *
 * <p>Validated when bound: a bad value stops the application's start naming the property and the value
 * ({@code dispatcher.schema must be an unquoted lower-case PostgreSQL identifier, but was 'Orders'}).
 *
 * @param schema the schema of Dispatcher's tables; the writers name it in their statements, so the application's
 *     connections need no {@code search_path} for it
 * @param client the application side
 */
@ConfigurationProperties("dispatcher")
public record DispatcherClientProperties(@DefaultValue(DispatcherClientProperties.DEFAULT_SCHEMA) String schema,
        @DefaultValue Client client) {

    public static final String DEFAULT_SCHEMA = "dispatcher";

    public DispatcherClientProperties {
        try {
            JdbcOutboxWriter.forSchema(schema);
        } catch (IllegalArgumentException e) {
            // the writers' rule for a schema, reported under the property's name
            throw new IllegalArgumentException("dispatcher." + e.getMessage());
        }
    }

    /**
     * {@code dispatcher.client.*}.
     *
     * @param migrate whether the application applies Dispatcher's migrations to its database at start-up, with
     *     Dispatcher's own Flyway history table in {@code dispatcher.schema} (default {@code false}: the
     *     Dispatcher service migrates)
     * @param maxDelay how far ahead a message's {@code deliverAt}/{@code delay} may reach; keep it equal to the
     *     service's {@code dispatcher.ingest.max-delay} (default 7 days, {@code DeliveryTime.DEFAULT_MAX_DELAY})
     * @param maxPayloadSize the largest payload the writers accept (default 1MB, as the service's {@code
     *     dispatcher.ingest.max-payload-size}); a larger one fails with {@code PayloadTooLargeException} before
     *     anything is written. Keep it within what the service's producer and the brokers accept
     */
    public record Client(@DefaultValue("false") boolean migrate, @DefaultValue("7d") Duration maxDelay,
            @DefaultValue("1MB") DataSize maxPayloadSize) {

        /** The longest {@link #maxDelay} allowed. */
        public static final Duration MAX_MAX_DELAY = Duration.ofDays(365);

        public Client {
            if (maxDelay == null || maxDelay.compareTo(Duration.ofSeconds(1)) < 0
                    || maxDelay.compareTo(MAX_MAX_DELAY) > 0) {
                throw new IllegalArgumentException("dispatcher.client.max-delay must be between 1s and 365d, but was "
                        + maxDelay);
            }
            if (maxPayloadSize == null || maxPayloadSize.toBytes() < 1) {
                throw new IllegalArgumentException("dispatcher.client.max-payload-size must be positive, but was "
                        + maxPayloadSize);
            }
        }
    }
}
