package dev.dispatcher.app.demo;

import dev.dispatcher.app.config.DispatcherProperties;
import io.r2dbc.spi.ConnectionFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Starts the demo producer with the application when {@code dispatcher.demo.enabled} is true. Public for
 * {@link #TOPIC} only: the embedded run creates that topic (brokers do not create topics on first use).
 */
@Configuration(proxyBeanMethods = false)
public class DemoConfiguration {

    /** The topic the demo producer writes to. */
    public static final String TOPIC = "dispatcher.demo.orders";

    @Bean
    @ConditionalOnBooleanProperty("dispatcher.demo.enabled")
    DemoProducer demoProducer(ConnectionFactory connectionFactory, DispatcherProperties properties) {
        return new DemoProducer(connectionFactory, properties.demo().rate());
    }
}
