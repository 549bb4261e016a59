package dev.dispatcher.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dispatcher.boot.shop.Checkout;
import dev.dispatcher.boot.shop.ShopApplication;
import dev.dispatcher.client.JdbcOutboxWriter;
import dev.dispatcher.client.OutboxWriter;
import dev.dispatcher.client.WrittenMessage;
import dev.dispatcher.client.spring.SpringJdbcOutboxWriter;
import java.sql.SQLException;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The starter in a JPA application with its own Flyway migrations ({@link ShopApplication}) on a fresh database:
 * both migration sets apply, each in its own schema and history table, and an entity save and an outbox write in
 * one {@code @Transactional} method commit or roll back together.
 */
@SpringBootTest(classes = ShopApplication.class, properties = {
        "dispatcher.client.migrate=true",
        // the starter's test classpath also carries R2DBC, for R2dbcApplicationIT; a JPA application has none, and
        // Boot would otherwise prefer an R2DBC ConnectionFactory to a DataSource
        "spring.autoconfigure.exclude=org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration"})
class JpaApplicationIT {

    private static final String DATABASE = StarterTestDatabases.create("shop");

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> StarterTestDatabases.jdbcUrl(DATABASE));
        registry.add("spring.datasource.username", StarterTestDatabases.postgres::username);
        registry.add("spring.datasource.password", StarterTestDatabases.postgres::password);
    }

    @Autowired
    Checkout checkout;

    @Autowired
    ApplicationContext context;

    @Test
    void bothMigrationSetsApplyEachWithItsOwnHistory() throws SQLException {
        assertThat(StarterTestDatabases.rows(DATABASE, "SELECT version, description FROM public.flyway_schema_history"
                + " WHERE version IS NOT NULL ORDER BY installed_rank"))
                .containsExactly("1 purchase orders");
        assertThat(StarterTestDatabases.rows(DATABASE, "SELECT version, description FROM"
                + " dispatcher.dispatcher_schema_history WHERE version IS NOT NULL ORDER BY installed_rank"))
                .containsExactlyElementsOf(StarterTestDatabases.dispatcherMigrations())
                .startsWith("1 outbox inbox audit control", "2 coalesced outbox notify");
        assertThat(StarterTestDatabases.rows(DATABASE, "SELECT table_schema || '.' || table_name FROM"
                + " information_schema.tables WHERE table_name IN ('purchase_order', 'outbox_message')"
                + " ORDER BY 1"))
                .containsExactly("dispatcher.outbox_message", "public.purchase_order");
    }

    @Test
    void theJdbcWritersAreConfiguredAndNoR2dbcOne() {
        assertThat(context.getBeanNamesForType(SpringJdbcOutboxWriter.class)).hasSize(1);
        assertThat(context.getBeanNamesForType(JdbcOutboxWriter.class)).hasSize(1);
        assertThat(context.getBeanNamesForType(OutboxWriter.class)).isEmpty();
    }

    @Test
    void anEntitySaveAndAnOutboxWriteCommitInOneTransaction() throws SQLException {
        String orderId = "order-" + UUID.randomUUID();

        WrittenMessage entry = checkout.place(orderId, false);

        // one transaction id on both rows: the outbox row was written on JPA's own connection and transaction
        assertThat(StarterTestDatabases.rows(DATABASE, "SELECT xmin::text FROM public.purchase_order WHERE id = ?",
                orderId))
                .hasSize(1)
                .isEqualTo(StarterTestDatabases.rows(DATABASE,
                        "SELECT xmin::text FROM dispatcher.outbox_message WHERE id = ?", entry.id()));
    }

    @Test
    void aRollbackRemovesTheEntityAndTheOutboxRow() throws SQLException {
        String orderId = "order-" + UUID.randomUUID();

        assertThatThrownBy(() -> checkout.place(orderId, true)).hasMessageContaining("payment declined");

        assertThat(StarterTestDatabases.rows(DATABASE, "SELECT id FROM public.purchase_order WHERE id = ?", orderId))
                .isEmpty();
        assertThat(StarterTestDatabases.rows(DATABASE,
                "SELECT id FROM dispatcher.outbox_message WHERE message_key = ?", orderId)).isEmpty();
    }
}
