package dev.dispatcher.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.dispatcher.app.DispatcherApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.NestedExceptionUtils;

/**
 * Start-up with an invalid {@code dispatcher.*} value fails before anything connects, and the report Boot prints
 * names the property and the value. No servers needed: every bean that connects depends on the properties.
 */
@ExtendWith(OutputCaptureExtension.class)
class DispatcherStartupFailureTest {

    private static final String MESSAGE = "dispatcher.relay.batch-size must be between 1 and 10000, but was 0";

    @Test
    void invalidBatchSizeStopsStartUpNamingThePropertyAndValue(CapturedOutput output) {
        Throwable failure = catchThrowable(() -> SpringApplication.run(DispatcherApplication.class,
                "--spring.r2dbc.url=r2dbc:postgresql://127.0.0.1:1/unreachable",
                "--spring.kafka.bootstrap-servers=127.0.0.1:1",
                "--server.port=0",
                "--spring.main.banner-mode=off",
                "--dispatcher.relay.batch-size=0"));

        assertThat(failure).hasStackTraceContaining(BindException.class.getName());
        assertThat(NestedExceptionUtils.getMostSpecificCause(failure))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(MESSAGE);
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("Failed to bind properties under 'dispatcher.relay'")
                .contains(MESSAGE);
    }

    @Test
    void anUnknownPoolerStopsStartUpNamingTheProperty(CapturedOutput output) {
        Throwable failure = catchThrowable(() -> SpringApplication.run(DispatcherApplication.class,
                "--spring.r2dbc.url=r2dbc:postgresql://127.0.0.1:1/unreachable",
                "--spring.kafka.bootstrap-servers=127.0.0.1:1",
                "--server.port=0",
                "--spring.main.banner-mode=off",
                "--dispatcher.database.pooler=session"));

        assertThat(failure).hasStackTraceContaining("dispatcher.database.pooler");
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("dispatcher.database.pooler")
                .contains("session");
    }

    @Test
    void aCloudEventsFormatWithoutASourceStopsStartUpNamingTheProperty(CapturedOutput output) {
        Throwable failure = catchThrowable(() -> SpringApplication.run(DispatcherApplication.class,
                "--spring.r2dbc.url=r2dbc:postgresql://127.0.0.1:1/unreachable",
                "--spring.kafka.bootstrap-servers=127.0.0.1:1",
                "--server.port=0",
                "--spring.main.banner-mode=off",
                "--dispatcher.relay.format=cloudevents-structured"));

        String message = "dispatcher.relay.cloudevents.source must be set (a URI reference, the events' source) when"
                + " dispatcher.relay.format is cloudevents-structured, but was absent";
        assertThat(NestedExceptionUtils.getMostSpecificCause(failure))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
        assertThat(output.getOut() + output.getErr()).contains("APPLICATION FAILED TO START").contains(message);
    }

    @Test
    void invalidEnumNamesThePropertyAndValue(CapturedOutput output) {
        Throwable failure = catchThrowable(() -> SpringApplication.run(DispatcherApplication.class,
                "--spring.r2dbc.url=r2dbc:postgresql://127.0.0.1:1/unreachable",
                "--server.port=0",
                "--spring.main.banner-mode=off",
                "--dispatcher.relay.ordering=sideways"));

        assertThat(failure).isNotNull();
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("dispatcher.relay.ordering")
                .contains("sideways");
    }
}
