package dev.dispatcher.app.observe;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;

/**
 * {@code dispatcher.auth.failures{reason}}: refused authentications, by why they were refused. Every reason's
 * counter is registered at construction, so a scrape shows zeros before the first failure and alert rules find the
 * series. Thread-safe.
 */
public final class AuthFailureCounter {

    /** The metric's name (docs/operations.md, "Metrics"). */
    public static final String NAME = "dispatcher.auth.failures";

    /** Why an authentication was refused: the {@code reason} tag's closed set of values. */
    public enum Reason {
        /** A known user with a wrong password, or a Basic header that is not {@code user:password} in base64. */
        BAD_CREDENTIALS("bad_credentials"),
        /** A user name nobody is configured with (answered like a wrong password, at the same cost). */
        UNKNOWN_USER("unknown_user"),
        /** A Bearer value that is no configured API token, or a JWT the decoder refused. */
        BAD_TOKEN("bad_token"),
        /** Refused unchecked: the client address or the user name is past its limit of failures. */
        THROTTLED("throttled");

        private final String tag;

        Reason(String tag) {
            this.tag = tag;
        }

        public String tag() {
            return tag;
        }
    }

    private final Map<Reason, Counter> counters = new EnumMap<>(Reason.class);

    public AuthFailureCounter(MeterRegistry registry) {
        for (Reason reason : Reason.values()) {
            counters.put(reason, Counter.builder(NAME).tag("reason", reason.tag())
                    .description("refused authentications").register(registry));
        }
    }

    public void count(Reason reason) {
        counters.get(reason).increment();
    }
}
