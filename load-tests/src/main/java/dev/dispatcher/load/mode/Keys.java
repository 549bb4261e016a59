package dev.dispatcher.load.mode;

/**
 * The message keys of a seeded backlog ({@code --keys}): {@code K} keys spread evenly ({@code 64} by default), {@code
 * hot} (one key holds half the rows, 63 others share the rest) or {@code none} (null keys, unordered).
 */
public sealed interface Keys {

    /** {@code --keys} when absent. */
    String DEFAULT = "64";

    /** The option as given, reported as the RESULT's {@code keys}. */
    String text();

    /** The SQL expression of the key of generated row {@code g} (1-based) of {@code generate_series(1, n) g}. */
    String sqlExpression();

    /** {@code count} keys, {@code key-0} to {@code key-<count-1>}, row {@code g} on {@code key-<g % count>}. */
    record Spread(int count) implements Keys {

        public Spread {
            if (count < 1) {
                throw new IllegalArgumentException("--keys must be at least 1, but was " + count);
            }
        }

        @Override
        public String text() {
            return Integer.toString(count);
        }

        @Override
        public String sqlExpression() {
            return "'key-' || (g % " + count + ")";
        }
    }

    /** Every second row on key {@code hot}, the others on 63 keys. */
    record Hot() implements Keys {

        @Override
        public String text() {
            return "hot";
        }

        @Override
        public String sqlExpression() {
            return "CASE WHEN g % 2 = 0 THEN 'hot' ELSE 'key-' || (g % 63) END";
        }
    }

    /** No key: {@code none} or {@code 0}, as given. */
    record None(String text) implements Keys {

        @Override
        public String sqlExpression() {
            return "NULL";
        }
    }

    /**
     * {@code --keys}, {@link #DEFAULT} when absent.
     *
     * @throws IllegalArgumentException naming the option and the value when it is none of the above
     */
    static Keys parse(Options o) {
        String text = o.text("keys", DEFAULT);
        return switch (text) {
            case "hot" -> new Hot();
            case "none", "0" -> new None(text);
            default -> {
                try {
                    yield new Spread(Integer.parseInt(text));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--keys must be a number of keys, hot or none, but was '"
                            + text + "'");
                }
            }
        };
    }
}
