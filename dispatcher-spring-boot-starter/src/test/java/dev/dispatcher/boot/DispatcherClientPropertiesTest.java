package dev.dispatcher.boot;

import static org.assertj.core.api.Assertions.assertThat;

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Start-up refuses bad {@code dispatcher.schema} and {@code dispatcher.client.*} values, naming property and value. */
class DispatcherClientPropertiesTest {

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DispatcherClientAutoConfiguration.class));

    @Test
    void defaultsNeedNoConfiguration() {
        application.run(context -> {
            assertThat(context).hasNotFailed();
            DispatcherClientProperties properties = context.getBean(DispatcherClientProperties.class);
            assertThat(properties.schema()).isEqualTo("dispatcher");
            assertThat(properties.client().migrate()).isFalse();
            assertThat(properties.client().maxDelay()).hasDays(7);
            assertThat(properties.client().maxPayloadSize().toBytes()).isEqualTo(1024 * 1024);
        });
    }

    @Test
    void aPayloadLimitThatIsNotPositiveStopsStartUp() {
        application.withPropertyValues("dispatcher.client.max-payload-size=0B").run(context ->
                assertThat(context).getFailure().rootCause()
                        .hasMessage("dispatcher.client.max-payload-size must be positive, but was 0B"));
    }

    @Test
    void aSchemaThatIsNoPlainIdentifierStopsStartUp() {
        application.withPropertyValues("dispatcher.schema=Orders-Outbox").run(context ->
                assertThat(context).getFailure().rootCause().hasMessage("dispatcher.schema must be an unquoted"
                        + " lower-case PostgreSQL identifier, but was 'Orders-Outbox'"));
    }

    @Test
    void aMaximumDelayOutsideItsRangeStopsStartUp() {
        application.withPropertyValues("dispatcher.client.max-delay=0s").run(context ->
                assertThat(context).getFailure().rootCause()
                        .hasMessage("dispatcher.client.max-delay must be between 1s and 365d, but was PT0S"));
    }

    @Test
    void migratingWithoutADatabaseConnectionStopsStartUp() {
        application.withPropertyValues("dispatcher.client.migrate=true").run(context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("dispatcher.client.migrate is true,"
                        + " but the application has neither a DataSource nor an R2DBC connection"));
    }

    @Test
    void migratingWithoutFlywayStopsStartUp() {
        application.withClassLoader(new FilteredClassLoader(Flyway.class))
                .withPropertyValues("dispatcher.client.migrate=true").run(context ->
                        assertThat(context).getFailure().rootCause().hasMessageContaining("Flyway is not on the"
                                + " classpath"));
    }
}
