package dev.dispatcher.load.mode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code --name value} options after a mode's name, read by the mode's own {@code parse}: each read names its
 * option, its default and its bounds, and a value out of bounds fails naming the option and the value. An option the
 * mode never read is refused ({@link #rejectUnread()}), so a misspelt or misplaced option fails instead of being
 * ignored.
 *
 * <p>{@link #FLAGS} take no value; each may also be written {@code --flag true} or {@code --flag false}.
 */
final class Options {

    /** Options that take no value. */
    static final Set<String> FLAGS = Set.of("quick", "baseline", "poison-topic", "poison-key", "failing-key",
            "compare-ordering");

    private final String mode;
    private final Map<String, String> given;
    /** Every option the mode's parser asked for, given or not: the options the mode takes. */
    private final Set<String> read = new LinkedHashSet<>();

    private Options(String mode, Map<String, String> given) {
        this.mode = mode;
        this.given = given;
    }

    /**
     * Options of {@code mode} from its command-line {@code tokens}.
     *
     * @throws IllegalArgumentException when a token is not an option, an option lacks its value or comes twice
     */
    static Options of(String mode, List<String> tokens) {
        Map<String, String> given = new LinkedHashMap<>();
        for (int i = 0; i < tokens.size(); i++) {
            String token = tokens.get(i);
            if (!token.startsWith("--") || token.length() == 2) {
                throw new IllegalArgumentException("expected an option such as --n, but got '" + token + "'");
            }
            String name = token.substring(2);
            String value;
            if (FLAGS.contains(name)) {
                boolean valued = i + 1 < tokens.size() && tokens.get(i + 1).matches("true|false");
                value = valued ? tokens.get(++i) : "true";
            } else if (i + 1 < tokens.size()) {
                value = tokens.get(++i);
            } else {
                throw new IllegalArgumentException("--" + name + " needs a value");
            }
            if (given.put(name, value) != null) {
                throw new IllegalArgumentException("--" + name + " is given twice");
            }
        }
        return new Options(mode, given);
    }

    /** {@code --quick}: a mode's small, CI-sized defaults. */
    boolean quick() {
        return flag("quick", false);
    }

    /** A flag: {@code fallback} when absent. */
    boolean flag(String name, boolean fallback) {
        read.add(name);
        String value = given.get(name);
        return value == null ? fallback : Boolean.parseBoolean(value);
    }

    /** A whole number in {@code [min, max]}. */
    int integer(String name, int fallback, int min, int max) {
        read.add(name);
        String value = given.get(name);
        if (value == null) {
            return fallback;
        }
        try {
            int parsed = Integer.parseInt(value.replace("_", ""));
            if (parsed >= min && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below, with the bounds
        }
        throw new IllegalArgumentException("--" + name + " must be a whole number between " + min + " and " + max
                + ", but was '" + value + "'");
    }

    /** A duration given in whole {@code unit}s ({@code seconds} or {@code ms}), within {@code [min, max]}. */
    Duration duration(String name, Duration fallback, Duration min, Duration max) {
        read.add(name);
        String value = given.get(name);
        if (value == null) {
            return fallback;
        }
        boolean seconds = name.endsWith("-s");
        try {
            long amount = Long.parseLong(value);
            Duration parsed = seconds ? Duration.ofSeconds(amount) : Duration.ofMillis(amount);
            if (parsed.compareTo(min) >= 0 && parsed.compareTo(max) <= 0) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below, with the bounds
        }
        String unit = seconds ? " s" : " ms";
        throw new IllegalArgumentException("--" + name + " must be a whole number between "
                + (seconds ? min.toSeconds() : min.toMillis()) + " and " + (seconds ? max.toSeconds() : max.toMillis())
                + unit + ", but was '" + value + "'");
    }

    /** Free text, or {@code fallback} (may be null) when absent. */
    String text(String name, String fallback) {
        read.add(name);
        return given.getOrDefault(name, fallback);
    }

    /** {@code --service-args "--a=1 --b=2"}: extra command-line properties of the service, split on spaces. */
    List<String> serviceArgs() {
        String value = text("service-args", "").strip();
        return value.isEmpty() ? List.of() : List.of(value.split("\\s+"));
    }

    /** Whether {@code name} was given. */
    boolean given(String name) {
        return given.containsKey(name);
    }

    /**
     * Refuses every option the mode did not read.
     *
     * @throws IllegalArgumentException naming the first such option and the options the mode takes
     */
    void rejectUnread() {
        List<String> unread = new ArrayList<>(given.keySet());
        unread.removeAll(read);
        if (!unread.isEmpty()) {
            throw new IllegalArgumentException(mode + " does not take --" + unread.getFirst() + "; its options: --"
                    + String.join(" --", read));
        }
    }
}
