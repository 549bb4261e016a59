package dev.dispatcher.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.testkit.TestServers;
import io.r2dbc.spi.ConnectionFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The whole application starts against the shared PostgreSQL and Kafka on a schema that does not exist yet:
 * Flyway creates and migrates it over a JDBC connection derived from {@code spring.r2dbc.*}, the R2DBC
 * connections use it as search path, and health reports {@code db} and {@code kafka} UP (readiness: {@code db}).
 */
class AppContextIT {

    private static final String WORKER_ID = "app-context-it";

    private static String schema;
    private static ConfigurableApplicationContext context;
    private static WebTestClient http;

    @BeforeAll
    static void startApplication() {
        schema = "app_context_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        Map<String, Object> properties = DispatcherTestProperties.forSchema(schema);
        // exercise the JDBC URL that Flyway derives from spring.r2dbc.*
        properties.keySet().removeIf(name -> name.startsWith("spring.flyway."));
        properties.put("dispatcher.worker-id", WORKER_ID);
        properties.put("server.port", 0);
        List<String> arguments = new ArrayList<>();
        properties.forEach((name, value) -> arguments.add("--" + name + "=" + value));
        context = new SpringApplicationBuilder(DispatcherApplication.class).run(arguments.toArray(String[]::new));
        String port = context.getEnvironment().getRequiredProperty("local.server.port");
        // generous: the first health check warms the Kafka admin client, slow on a loaded 2-core machine
        http = WebTestClient.bindToServer().baseUrl("http://localhost:" + port)
                .responseTimeout(java.time.Duration.ofSeconds(30)).build();
    }

    @AfterAll
    static void stopApplication() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void healthIsPublicAndUpWithDatabaseAndKafkaComponents() {
        http.get().uri("/actuator/health").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.status").isEqualTo("UP")
                .jsonPath("$.components.db.status").isEqualTo("UP")
                .jsonPath("$.components.kafka.status").isEqualTo("UP")
                .jsonPath("$.components.r2dbc").doesNotExist();
    }

    @Test
    void livenessAndReadinessGroupsAreUpAndReadinessFollowsPostgresAlone() {
        http.get().uri("/actuator/health/liveness").exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.status").isEqualTo("UP");
        http.get().uri("/actuator/health/readiness").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.status").isEqualTo("UP")
                .jsonPath("$.components.db.status").isEqualTo("UP")
                .jsonPath("$.components.kafka").doesNotExist();
    }

    @Test
    void flywayCreatedTheSchemaWithItsOwnHistoryTable() throws SQLException {
        List<String> tables = new ArrayList<>();
        try (Connection connection = TestServers.postgres().openConnection();
                PreparedStatement query = connection.prepareStatement(
                        "SELECT table_name FROM information_schema.tables WHERE table_schema = ?")) {
            query.setString(1, schema);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    tables.add(rows.getString(1));
                }
            }
        }
        assertThat(tables).contains("outbox_message", "inbox_message", "dispatch_audit", "dispatcher_control",
                "dispatcher_schema_history");
    }

    @Test
    void r2dbcConnectionsUseTheSchemaAndNameTheWorker() throws SQLException {
        ConnectionFactory connections = context.getBean(ConnectionFactory.class);
        String searchPath = Mono.usingWhen(connections.create(),
                        connection -> Flux.from(connection.createStatement("SHOW search_path").execute())
                                .flatMap(result -> result.map(row -> row.get(0, String.class)))
                                .next(),
                        io.r2dbc.spi.Connection::close)
                .block();
        assertThat(searchPath).isEqualTo(schema);

        try (Connection connection = TestServers.postgres().openConnection();
                PreparedStatement query = connection.prepareStatement(
                        "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?")) {
            query.setString(1, "dispatcher-" + WORKER_ID);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                assertThat(rows.getInt(1)).isPositive();
            }
        }
    }

    @Test
    void theServiceAnalysesAGrowingOutboxForItsCachedPlans() throws Exception {
        try (Connection connection = TestServers.postgres().openConnection(schema);
                java.sql.Statement statement = connection.createStatement()) {
            // delivered history: rows the planner must know about, which the relay leaves alone
            statement.executeUpdate("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload, status, delivered_at)
                    SELECT 'app-context', 'key-' || (g % 8), 'E', '\\x00', 'DELIVERED', now()
                      FROM generate_series(1, 2000) g
                    """);
            await("ANALYZE run on the service's outbox").atMost(java.time.Duration.ofSeconds(20))
                    .pollInterval(java.time.Duration.ofMillis(200))
                    .untilAsserted(() -> {
                        try (ResultSet rows = statement.executeQuery("""
                                SELECT analyze_count FROM pg_stat_user_tables
                                 WHERE schemaname = current_schema() AND relname = 'outbox_message'
                                """)) {
                            rows.next();
                            // ANALYZE statements only; autovacuum's are autoanalyze_count
                            assertThat(rows.getLong(1)).as("ANALYZE runs on the service's outbox").isPositive();
                        }
                    });
        }
    }
}
