package dev.dispatcher.app.config;

import static dev.dispatcher.app.config.PropertyRules.invalid;
import static dev.dispatcher.app.config.PropertyRules.orDefault;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.ConstructorBinding;

/**
 * {@code dispatcher.demo.*}: the built-in demo producer, which writes sample messages to the outbox.
 *
 * @param enabled whether it runs (the embedded run turns it on)
 * @param rate messages per second (0.1..100000)
 */
public record DemoProperties(boolean enabled, double rate) {

    public static final boolean DEFAULT_ENABLED = false;
    public static final double DEFAULT_RATE = 20.0;

    public DemoProperties {
        if (!(rate >= 0.1 && rate <= 100_000)) {
            throw invalid("demo.rate", "must be between 0.1 and 100000 messages per second", rate);
        }
    }

    /** The binding constructor: an absent value takes its default. */
    @ConstructorBinding
    public DemoProperties(@Nullable Boolean enabled, @Nullable Double rate) {
        this(orDefault(enabled, DEFAULT_ENABLED).booleanValue(), orDefault(rate, DEFAULT_RATE).doubleValue());
    }

    public static DemoProperties defaults() {
        return new DemoProperties(null, (Double) null);
    }
}
