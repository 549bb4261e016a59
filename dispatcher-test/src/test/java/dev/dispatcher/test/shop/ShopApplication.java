package dev.dispatcher.test.shop;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A small application as docs/client.md's Spring Boot example has it: JDBC, the Dispatcher starter, and a service that
 * saves an order and writes its outbox message in one transaction ({@link Checkout}). Its table is {@code schema.sql}.
 */
@SpringBootApplication
public class ShopApplication {
}
