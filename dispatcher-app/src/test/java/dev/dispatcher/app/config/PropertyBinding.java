package dev.dispatcher.app.config;

import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * Binds {@code dispatcher.*} from a map as Spring Boot does, and checks a refusal's message, for the properties
 * tests.
 */
final class PropertyBinding {

    private PropertyBinding() {
    }

    static Map<String, String> properties(String... namesAndValues) {
        Map<String, String> properties = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            properties.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return properties;
    }

    static DispatcherProperties bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties))
                .bindOrCreate(DispatcherProperties.PREFIX, DispatcherProperties.class);
    }

    /** The validation error itself, without the binder's wrapping. */
    static DispatcherProperties bindUnwrapped(Map<String, String> properties) {
        try {
            return bind(properties);
        } catch (RuntimeException e) {
            Throwable cause = e;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            if (cause instanceof IllegalArgumentException invalid) {
                throw invalid;
            }
            throw e;
        }
    }

    static void assertInvalid(Runnable construction, String message) {
        assertThatIllegalArgumentException().isThrownBy(construction::run).withMessage(message);
    }
}
