package dev.dispatcher.boot.shop;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A small application using the starter as a team would: JPA over a pooled DataSource, its own Flyway migrations
 * under Flyway's default {@code db/migration} (a {@code V1} of its own), and {@code dispatcher.client.migrate=true}.
 */
@SpringBootApplication
public class ShopApplication {
}
