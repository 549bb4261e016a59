package dev.dispatcher.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.test.shop.Checkout;
import dev.dispatcher.test.shop.ShopApplication;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * docs/client.md's JUnit 5 example with the Spring Boot starter, as an application writes it: the application's
 * context on the relay's database and schema, an order placed through its {@code @Transactional} service, and a wait
 * for the order's message to be delivered. The application's context is its own: nothing of the service is on its
 * class path (the relay runs in a JVM of its own).
 */
// --8<-- [start:example]
@SpringBootTest(classes = ShopApplication.class, properties = "spring.sql.init.mode=always")
class StarterExampleIT {

    @RegisterExtension
    static final DispatcherTestRelay dispatcher = DispatcherTestRelay.builder().topics("orders").build();

    @DynamicPropertySource
    static void dispatcherDatabase(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", dispatcher::jdbcUrl);
        registry.add("spring.datasource.username", dispatcher::username);
        registry.add("spring.datasource.password", dispatcher::password);
        registry.add("dispatcher.schema", dispatcher::schema);              // where the starter's writer writes
    }

    @Autowired
    Checkout checkout;

    @Test
    void aPlacedOrderIsPublished() throws Exception {
        UUID id = checkout.place("order-42").id();

        dispatcher.awaitDelivered(id);
        // --8<-- [end:example]
        try (Connection c = dispatcher.openConnection(); Statement s = c.createStatement();
                ResultSet order = s.executeQuery("SELECT status FROM public.shop_order WHERE id = 'order-42'")) {
            assertThat(order.next()).as("the order committed with its message").isTrue();
        }
    }
}
