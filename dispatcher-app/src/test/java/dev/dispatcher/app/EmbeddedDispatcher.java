package dev.dispatcher.app;

import dev.dispatcher.app.demo.DemoConfiguration;
import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;

/**
 * Runs Dispatcher with everything it needs in one JVM: embedded PostgreSQL and an in-process KRaft Kafka broker
 * from the test kit (which, like a production broker, creates no topic on first use: the run creates {@link
 * #DEMO_TOPICS}), then the application with the demo producer on. This is the README's run command:
 * {@code ./mvnw -q -pl dispatcher-app -am test-compile spring-boot:test-run}.
 *
 * <p>Arguments are passed to the application and win over the embedded defaults, e.g.
 * {@code --server.port=0} or {@code --dispatcher.demo.rate=100}. An invalid value stops start-up with Boot's report
 * naming the property and the value, and the process exits with status 1. Ctrl-C stops the application and the
 * servers. Embedded servers and Kafka's clients log at WARN unless asked with
 * {@code --dispatcher.embedded.server-log-level=INFO} (or DEBUG), so what a person reads is the banner and the relay's
 * summary line.
 */
public final class EmbeddedDispatcher {

    private static final String DEFAULT_PORT = "8080";
    /** Topics the run creates: the demo producer's, and the one the ingest example of docs/http-api.md posts to. */
    static final List<String> DEMO_TOPICS = List.of(DemoConfiguration.TOPIC, "orders");
    /** Logging of the run, servers at WARN unless asked (see the file); used before Boot starts and by Boot. */
    static final String LOGGING_CONFIG = "embedded-logback.xml";
    private static final String LOGBACK_CONFIGURATION_FILE = "logback.configurationFile";
    /** The level of the embedded servers' and Kafka clients' loggers ({@value #LOGGING_CONFIG} reads it). */
    static final String SERVER_LOG_LEVEL = "dispatcher.embedded.server-log-level";

    private EmbeddedDispatcher() {
    }

    /** Starts the servers and the application; returns once the application is up and the banner is printed. */
    public static void main(String[] args) {
        // before anything logs: the servers start before Boot configures logging
        Arrays.stream(args).filter(arg -> arg.startsWith("--" + SERVER_LOG_LEVEL + "="))
                .forEach(arg -> System.setProperty(SERVER_LOG_LEVEL, arg.substring(SERVER_LOG_LEVEL.length() + 3)));
        boolean ownLogging = System.getProperty(LOGBACK_CONFIGURATION_FILE) == null;
        if (ownLogging) {
            System.setProperty(LOGBACK_CONFIGURATION_FILE, LOGGING_CONFIG);
        }
        PostgresServer postgres = TestServers.postgres();
        KafkaServer kafka = TestServers.kafka();
        // the broker creates no topic on first use, as production brokers do not: the demo's and docs/http-api.md's
        DEMO_TOPICS.forEach(topic -> kafka.createTopic(topic, 3));
        if (ownLogging) {
            // Boot takes the same file from logging.config, and warns about this property when it is set
            System.clearProperty(LOGBACK_CONFIGURATION_FILE);
        }

        Map<String, String> embedded = new LinkedHashMap<>();
        embedded.put("spring.r2dbc.url", postgres.r2dbcUrl());
        embedded.put("spring.r2dbc.username", postgres.username());
        embedded.put("spring.r2dbc.password", postgres.password());
        embedded.put("spring.kafka.bootstrap-servers", kafka.bootstrapServers());
        embedded.put("server.port", DEFAULT_PORT);
        embedded.put("dispatcher.demo.enabled", "true");
        embedded.put("logging.config", "classpath:" + LOGGING_CONFIG);

        List<String> arguments = new ArrayList<>();
        embedded.forEach((name, value) -> {
            // a repeated command-line option would bind as "a,b": leave out what the user set
            if (Arrays.stream(args).noneMatch(arg -> arg.startsWith("--" + name + "="))) {
                arguments.add("--" + name + "=" + value);
            }
        });
        arguments.addAll(Arrays.asList(args));

        DemoCredentials demo = DemoCredentials.generate();
        ConfigurableApplicationContext context;
        try {
            SpringApplication application = new SpringApplication(DispatcherApplication.class);
            // default properties, not arguments: the secrets stay out of `ps`, and arguments still win
            application.setDefaultProperties(demo.properties());
            context = application.run(arguments.toArray(String[]::new));
        } catch (RuntimeException e) {
            // Boot has printed why; the brokers' non-daemon threads would keep the JVM alive
            System.exit(1);
            return;
        }
        String port = context.getEnvironment().getProperty("local.server.port", DEFAULT_PORT);
        System.out.println();
        System.out.println("Dispatcher is up on http://localhost:" + port + " (embedded PostgreSQL on port "
                + postgres.port() + ", Kafka at " + kafka.bootstrapServers() + "); health: http://localhost:" + port
                + "/actuator/health; Ctrl-C stops it");
        System.out.println("Demo credentials, generated for this run and printed only here:");
        System.out.println("  HTTP Basic user (PRODUCER, OPERATOR): " + DemoCredentials.USER + " / " + demo.password());
        System.out.println("  Bearer API token (PRODUCER):          " + demo.token());
        System.out.println("  e.g. curl -u " + DemoCredentials.USER + ":" + demo.password() + " http://localhost:" + port
                + "/v1/stats");
        System.out.println("  Operator console: http://localhost:" + port + "/console/ (sign in as "
                + DemoCredentials.USER + ")");
        System.out.println();
    }

    /**
     * A PRODUCER+OPERATOR Basic user and a PRODUCER API token, generated at start from {@link SecureRandom}. The
     * password goes into configuration bcrypt-hashed and the token as its SHA-256, as an operator would configure
     * them; the plaintexts exist only in this process and the banner.
     */
    record DemoCredentials(String password, String token) {

        static final String USER = "demo";
        static final String TOKEN_NAME = "demo-producer";

        static DemoCredentials generate() {
            SecureRandom random = new SecureRandom();
            return new DemoCredentials(randomText(random, 18), "dsp_" + randomText(random, 32));
        }

        private static String randomText(SecureRandom random, int bytes) {
            byte[] secret = new byte[bytes];
            random.nextBytes(secret);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        }

        Map<String, Object> properties() {
            Map<String, Object> properties = new LinkedHashMap<>();
            properties.put("dispatcher.security.users[0].name", USER);
            properties.put("dispatcher.security.users[0].password",
                    "{bcrypt}" + new BCryptPasswordEncoder().encode(password));
            properties.put("dispatcher.security.users[0].roles", "PRODUCER,OPERATOR");
            properties.put("dispatcher.security.tokens[0].name", TOKEN_NAME);
            try {
                properties.put("dispatcher.security.tokens[0].sha256", HexFormat.of().formatHex(
                        MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8))));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            properties.put("dispatcher.security.tokens[0].roles", "PRODUCER");
            return properties;
        }

        @Override
        public String toString() {
            return "DemoCredentials[******]";
        }
    }
}
