package dev.dispatcher.load.mode;

/** {@code --ordering}: whether a key's messages go in order ({@code dispatcher.relay.ordering} and the inbox's). */
public enum Ordering {
    PER_KEY("per-key"), PER_KEY_ACROSS_TOPICS("per-key-across-topics"), NONE("none");

    private final String text;

    Ordering(String text) {
        this.text = text;
    }

    /**
     * The property value and the RESULT's {@code ordering}: {@code per-key}, {@code per-key-across-topics} or {@code
     * none}.
     */
    public String text() {
        return text;
    }

    /**
     * {@code --ordering}, {@code fallback} when absent.
     *
     * @throws IllegalArgumentException naming the option and the value when it is neither
     */
    static Ordering parse(Options o, Ordering fallback) {
        String value = o.text("ordering", fallback.text);
        for (Ordering ordering : values()) {
            if (ordering.text.equals(value)) {
                return ordering;
            }
        }
        throw new IllegalArgumentException("--ordering must be per-key, per-key-across-topics or none, but was '"
                + value + "'");
    }
}
