package dev.dispatcher.app.demo;

import dev.dispatcher.app.config.DispatcherProperties;
import io.r2dbc.spi.ConnectionFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Starts the demo producer with the application when {@code dispatcher.demo.enabled} is true. */
@Configuration(proxyBeanMethods = false)
class DemoConfiguration {

    @Bean
    @ConditionalOnBooleanProperty("dispatcher.demo.enabled")
    DemoProducer demoProducer(ConnectionFactory connectionFactory, DispatcherProperties properties) {
        return new DemoProducer(connectionFactory, properties.demo().rate());
    }
}
