package dev.dispatcher.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dispatcher.client.JdbcOutboxWriter;
import dev.dispatcher.client.OutboxMessage;
import dev.dispatcher.client.OutboxWriter;
import dev.dispatcher.client.PayloadTooLargeException;
import dev.dispatcher.client.WrittenMessage;
import dev.dispatcher.client.spring.SpringR2dbcOutboxWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration;
import org.springframework.boot.r2dbc.autoconfigure.R2dbcTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.transaction.reactive.TransactionalOperator;

/**
 * The starter in an R2DBC application without a DataSource: the R2DBC writers are configured, and the migration
 * reaches the application's database over JDBC derived from {@code spring.r2dbc.url}, into {@code dispatcher.schema}.
 */
class R2dbcApplicationIT {

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(R2dbcAutoConfiguration.class,
                    R2dbcTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                    DispatcherClientAutoConfiguration.class));

    @Test
    void migratesOverJdbcAndWritesInTheReactiveTransaction() {
        String database = StarterTestDatabases.create("reactive");
        application.withPropertyValues(
                        "spring.r2dbc.url=" + StarterTestDatabases.r2dbcUrl(database),
                        "spring.r2dbc.username=" + StarterTestDatabases.postgres.username(),
                        "spring.r2dbc.password=" + StarterTestDatabases.postgres.password(),
                        "dispatcher.schema=outbox",
                        "dispatcher.client.migrate=true",
                        "dispatcher.client.max-payload-size=1KB")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(OutboxWriter.class).hasSingleBean(SpringR2dbcOutboxWriter.class)
                            .doesNotHaveBean(JdbcOutboxWriter.class);
                    assertThat(StarterTestDatabases.rows(database, "SELECT version FROM"
                            + " outbox.dispatcher_schema_history WHERE version IS NOT NULL ORDER BY installed_rank"))
                            .containsExactlyElementsOf(StarterTestDatabases.dispatcherMigrationVersions())
                            .startsWith("1", "2");

                    WrittenMessage entry = context.getBean(SpringR2dbcOutboxWriter.class)
                            .write(OutboxMessage.builder("orders", "OrderPlaced").key("o-1").jsonPayload("{}").build())
                            .as(context.getBean(TransactionalOperator.class)::transactional)
                            .block(Duration.ofSeconds(20));
                    assertThat(StarterTestDatabases.rows(database,
                            "SELECT event_type FROM outbox.outbox_message WHERE id = ?", entry.id()))
                            .containsExactly("OrderPlaced");

                    // dispatcher.client.max-payload-size reaches the writer: refused before anything is written
                    assertThatThrownBy(() -> context.getBean(SpringR2dbcOutboxWriter.class)
                            .write(OutboxMessage.builder("orders", "Big").payload(new byte[1025]).build())
                            .as(context.getBean(TransactionalOperator.class)::transactional)
                            .block(Duration.ofSeconds(20)))
                            .isInstanceOf(PayloadTooLargeException.class)
                            .hasMessageContaining("more than the writer's limit of 1024 bytes");
                    assertThat(StarterTestDatabases.rows(database,
                            "SELECT event_type FROM outbox.outbox_message WHERE event_type = 'Big'")).isEmpty();
                });
    }
}
