package dev.dispatcher.load.bench;

import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.PostgresServer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;

/**
 * How the harness reaches a service it starts: a fresh API token (roles PRODUCER and OPERATOR: ingest, the relay's
 * pause switch, stats and the Prometheus scrape), configured on the service's command line by its SHA-256 as
 * {@code dispatcher.security.tokens[0]}, the way users configure one.
 *
 * @param token the Bearer token
 */
public record ServiceAccess(String token) {

    /** A fresh random token. */
    public static ServiceAccess random() {
        byte[] secret = new byte[24];
        new SecureRandom().nextBytes(secret);
        return new ServiceAccess("dsp_" + HexFormat.of().formatHex(secret));
    }

    /** The hex SHA-256 of {@code text}, as {@code dispatcher.security.tokens[i].sha256} takes it. */
    public static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** The service's command-line properties that configure this token. */
    public List<String> arguments() {
        return List.of("--dispatcher.security.tokens[0].name=benchmark",
                "--dispatcher.security.tokens[0].sha256=" + sha256(token),
                "--dispatcher.security.tokens[0].roles=PRODUCER,OPERATOR");
    }

    /**
     * The arguments that point a service at {@code postgres} and {@code kafka} with its tables in {@code schema}
     * (created by the service's Flyway when missing).
     */
    public static List<String> serverArguments(PostgresServer postgres, KafkaServer kafka, String schema) {
        return List.of(
                "--spring.r2dbc.url=" + postgres.r2dbcUrl(),
                "--spring.r2dbc.username=" + postgres.username(),
                "--spring.r2dbc.password=" + postgres.password(),
                "--spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                "--dispatcher.schema=" + schema);
    }
}
