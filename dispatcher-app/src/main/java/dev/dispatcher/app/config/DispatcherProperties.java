package dev.dispatcher.app.config;

import static dev.dispatcher.app.config.PropertyRules.invalid;
import static dev.dispatcher.app.config.PropertyRules.quoted;

import dev.dispatcher.app.queue.ThreadLocalRandomSource;
import dev.dispatcher.app.source.Sources;
import dev.dispatcher.domain.RetryPolicy;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Dispatcher's own configuration, bound from {@code dispatcher.*}; the names are a public contract (docs/contract.md,
 * "Configuration"). One record per block ({@link RelayProperties}, {@link RetryProperties},
 * {@link RetentionProperties}, {@link IngestProperties}, {@link DemoProperties}, {@link SecurityProperties},
 * {@link InboxProperties}, {@link DatabaseProperties}, {@link ServerProperties}, {@link OperatorProperties}), each
 * validating its own values once.
 *
 * <p>Immutable. Every block is optional: an absent block, list or value takes the default named by the
 * {@code DEFAULT_*} constant beside it. Validation runs in the constructors, so an instance that exists is valid;
 * a bad value fails with an {@link IllegalArgumentException} whose message names the full property and the bad
 * value ({@code dispatcher.relay.batch-size must be between 1 and 10000, but was 0}), which Spring Boot reports
 * when it refuses to start. Secrets (passwords, token hashes) are never printed, neither by {@code toString} nor in
 * validation messages.
 *
 * @param workerId this instance's name in leases and logs, and in the database {@code application_name}
 *     ({@code dispatcher-<worker-id>}); defaults to {@code <hostname>-<pid>}
 * @param schema the PostgreSQL schema that holds Dispatcher's tables and Flyway's {@code dispatcher_schema_history};
 *     an unquoted identifier
 * @param relay the outbox relay
 * @param retry backoff and attempt limit for failed sends, and for inbox handlers unless a consumer says otherwise
 * @param retention how long finished rows and audit entries are kept
 * @param ingest limits of the HTTP ingest API
 * @param demo the built-in demo producer
 * @param security HTTP Basic users and Bearer API tokens
 * @param inbox Kafka consumers feeding the inbox
 * @param sources further databases to drain, each with its own tables, pool and relay, beside the {@code default}
 *     source of {@code spring.r2dbc.*}; names are unique
 * @param database how the service reaches PostgreSQL: directly or through a transaction pooler
 * @param server bounds of the HTTP server Spring Boot has no property for
 * @param operator bounds on what the operator API's reads may cost the database
 */
@ConfigurationProperties(DispatcherProperties.PREFIX)
public record DispatcherProperties(
        String workerId,
        String schema,
        @NestedConfigurationProperty RelayProperties relay,
        @NestedConfigurationProperty RetryProperties retry,
        @NestedConfigurationProperty RetentionProperties retention,
        @NestedConfigurationProperty IngestProperties ingest,
        @NestedConfigurationProperty DemoProperties demo,
        @NestedConfigurationProperty SecurityProperties security,
        @NestedConfigurationProperty InboxProperties inbox,
        List<SourceProperties> sources,
        @NestedConfigurationProperty DatabaseProperties database,
        @NestedConfigurationProperty ServerProperties server,
        @NestedConfigurationProperty OperatorProperties operator) {

    /** The prefix of every property bound here. */
    public static final String PREFIX = "dispatcher";

    public static final String DEFAULT_SCHEMA = "dispatcher";

    /** PostgreSQL truncates longer identifiers (NAMEDATALEN - 1). */
    public static final int MAX_IDENTIFIER_LENGTH = 63;

    private static final Pattern UNQUOTED_IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]*");

    /** A path segment and a metric tag value as they are. */
    private static final Pattern SOURCE_NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

    /** Validates, and fills every absent value with its default. */
    public DispatcherProperties {
        if (workerId == null) {
            workerId = defaultWorkerId();
        } else if (workerId.isBlank()) {
            throw invalid("worker-id", "must not be blank", quoted(workerId));
        }
        schema = schema == null ? DEFAULT_SCHEMA : schema;
        requireIdentifier("schema", schema);
        sources = sources(sources == null ? List.of() : sources, schema);
        relay = relay == null ? RelayProperties.defaults() : relay;
        retry = retry == null ? RetryProperties.defaults() : retry;
        retention = retention == null ? RetentionProperties.defaults() : retention;
        ingest = ingest == null ? IngestProperties.defaults() : ingest;
        demo = demo == null ? DemoProperties.defaults() : demo;
        security = security == null ? SecurityProperties.defaults() : security;
        inbox = inbox == null ? InboxProperties.defaults() : inbox;
        database = database == null ? DatabaseProperties.defaults() : database;
        server = server == null ? ServerProperties.defaults() : server;
        operator = operator == null ? OperatorProperties.defaults() : operator;
        retry.toPolicy("retry", ThreadLocalRandomSource.INSTANCE);
        List<String> sourceNames = sourceNames(sources);
        for (int i = 0; i < inbox.consumers().size(); i++) {
            inbox.consumers().get(i).retry().over(retry)
                    .toPolicy("inbox.consumers[" + i + "].retry", ThreadLocalRandomSource.INSTANCE);
            String source = inbox.consumers().get(i).source();
            if (!sourceNames.contains(source)) {
                throw invalid("inbox.consumers[" + i + "].source", "must name a source (known: "
                        + String.join(", ", sourceNames) + ")", quoted(source));
            }
        }
    }

    /** Every default; the worker id is {@code <hostname>-<pid>}. */
    public static DispatcherProperties defaults() {
        return new DispatcherProperties(null, null, null, null, null, null, null, null, null, null, null, null, null);
    }

    /** The names of every source, {@value Sources#DEFAULT} first, then {@code dispatcher.sources} in order. */
    public List<String> sourceNames() {
        return sourceNames(sources);
    }

    private static List<String> sourceNames(List<SourceProperties> sources) {
        List<String> names = new ArrayList<>(sources.size() + 1);
        names.add(Sources.DEFAULT);
        sources.forEach(s -> names.add(s.name()));
        return List.copyOf(names);
    }

    /** Validates each source, fills its schema, and checks that names are unique and not {@value Sources#DEFAULT}. */
    private static List<SourceProperties> sources(List<SourceProperties> sources, String defaultSchema) {
        List<SourceProperties> filled = new ArrayList<>(sources.size());
        Map<String, Integer> names = new HashMap<>();
        for (int i = 0; i < sources.size(); i++) {
            String path = "sources[" + i + "]";
            SourceProperties source = Objects.requireNonNull(sources.get(i), PREFIX + "." + path);
            if (source.name() == null || !SOURCE_NAME.matcher(source.name()).matches()) {
                throw invalid(path + ".name", "must be 1 to 63 lowercase letters, digits, '_' or '-', starting with a"
                        + " letter or digit", quoted(source.name()));
            }
            if (Sources.DEFAULT.equals(source.name())) {
                throw invalid(path + ".name", "must not be '" + Sources.DEFAULT + "', the name of the source of"
                        + " spring.r2dbc.*", quoted(source.name()));
            }
            Integer earlier = names.putIfAbsent(source.name(), i);
            if (earlier != null) {
                throw invalid(path + ".name", "must be unique, same as sources[" + earlier + "]",
                        quoted(source.name()));
            }
            if (source.url() == null || source.url().isBlank()) {
                throw invalid(path + ".url", "must be set (r2dbc:postgresql://host:port/database)", "absent");
            }
            if (!source.url().startsWith("r2dbc:")) {
                throw invalid(path + ".url", "must be an R2DBC URL (r2dbc:postgresql://host:port/database)",
                        quoted(SourceProperties.maskedUrl(source.url())));
            }
            String schema = source.schema() == null ? defaultSchema : source.schema();
            requireIdentifier(path + ".schema", schema);
            filled.add(new SourceProperties(source.name(), source.url(), source.username(), source.password(),
                    schema));
        }
        return List.copyOf(filled);
    }

    private static void requireIdentifier(String relativeName, String schema) {
        if (schema.length() > MAX_IDENTIFIER_LENGTH || !UNQUOTED_IDENTIFIER.matcher(schema).matches()) {
            throw invalid(relativeName, "must be an unquoted PostgreSQL identifier (lowercase letters, digits and"
                    + " underscores, not starting with a digit, at most " + MAX_IDENTIFIER_LENGTH + " characters)",
                    quoted(schema));
        }
    }

    /** The PostgreSQL {@code application_name} of this worker's connections: {@code dispatcher-<worker-id>}. */
    public String applicationName() {
        return "dispatcher-" + workerId;
    }

    /** The relay's retry policy, with a jitter source safe to share across threads. */
    public RetryPolicy relayRetryPolicy() {
        return retry.toPolicy("retry", ThreadLocalRandomSource.INSTANCE);
    }

    /** The retry policy of inbox consumer {@code index}: its own block over {@code dispatcher.retry.*}. */
    public RetryPolicy consumerRetryPolicy(int index) {
        return inbox.consumers().get(index).retry().over(retry)
                .toPolicy("inbox.consumers[" + index + "].retry", ThreadLocalRandomSource.INSTANCE);
    }

    /**
     * {@code <hostname>-<pid>}. The host name comes from {@code HOSTNAME} when set (containers), else from the
     * resolver; binding happens at start-up on the main thread, never on an event loop.
     */
    static String defaultWorkerId() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                host = "localhost";
            }
        }
        return host + "-" + ProcessHandle.current().pid();
    }
}
