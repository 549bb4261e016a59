package dev.dispatcher.domain;

import java.util.Objects;

/**
 * A {@link RetryPolicy} setting breaks its rule. Carries which setting, the rule and the value, so a configuration
 * layer can name its own property ({@code dispatcher.retry.max-delay ...}) without validating the rules again.
 */
public final class InvalidRetryPolicyException extends IllegalArgumentException {

    /** The policy's settings. */
    public enum Setting { INITIAL_DELAY, MAX_DELAY, MULTIPLIER, MAX_ATTEMPTS }

    private final Setting setting;
    private final String rule;
    private final Object value;

    InvalidRetryPolicyException(Setting setting, String rule, Object value) {
        super(setting.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + " " + rule + ", but was " + value);
        this.setting = Objects.requireNonNull(setting, "setting");
        this.rule = rule;
        this.value = value;
    }

    public Setting setting() {
        return setting;
    }

    /** The rule, phrased to follow the setting's name: {@code must be at least 1 ms}. */
    public String rule() {
        return rule;
    }

    /** The rejected value. */
    public Object value() {
        return value;
    }
}
