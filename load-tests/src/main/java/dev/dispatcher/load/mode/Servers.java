package dev.dispatcher.load.mode;

/**
 * Where a benchmark's PostgreSQL and Kafka are: the embedded servers (null URL, null bootstrap) or external ones,
 * {@code --pg-url jdbc:postgresql://host:port/db} with {@code --pg-user}/{@code --pg-password}, and {@code
 * --bootstrap host:port}.
 *
 * @param pgUrl an external PostgreSQL's JDBC URL, or null for the embedded, durable one
 * @param pgUser its user
 * @param pgPassword its password
 * @param bootstrap an external Kafka's bootstrap servers, or null for the in-process broker
 */
public record Servers(String pgUrl, String pgUser, String pgPassword, String bootstrap) {

    /** {@code --pg-user} and {@code --pg-password} when absent. */
    public static final String DEFAULT_USER = "postgres";

    /** The embedded PostgreSQL and the in-process broker. */
    public static final Servers EMBEDDED = new Servers(null, DEFAULT_USER, DEFAULT_USER, null);

    public Servers {
        if (pgUrl != null && !pgUrl.startsWith("jdbc:postgresql://")) {
            throw new IllegalArgumentException("--pg-url must be jdbc:postgresql://host[:port]/database, but was '"
                    + pgUrl + "'");
        }
    }

    static Servers parse(Options o) {
        return new Servers(o.text("pg-url", null), o.text("pg-user", DEFAULT_USER),
                o.text("pg-password", DEFAULT_USER), o.text("bootstrap", null));
    }

    /** Only the broker may be external ({@code --pg-url} is refused): for modes that need the embedded database. */
    static Servers parseEmbeddedPostgres(Options o, String why) {
        if (o.given("pg-url")) {
            throw new IllegalArgumentException(why);
        }
        return new Servers(null, DEFAULT_USER, DEFAULT_USER, o.text("bootstrap", null));
    }
}
