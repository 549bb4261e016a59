package dev.dispatcher.app.kafka;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where dead-lettered messages are also published: a topic name in which {@value #PLACEHOLDER} stands for the
 * message's own topic ({@code {topic}.DLT}), or a fixed name. Shared by every queue that publishes dead letters (an
 * inbox consumer's {@code dead-letter-topic}; the relay's later).
 *
 * <p>A valid template gives a valid Kafka topic name (1 to 249 of letters, digits, {@code .}, {@code _}, {@code -},
 * neither {@code .} nor {@code ..}) for any valid topic name it is given, unless the result is longer than 249
 * characters: {@link #problem} checks the template, {@link #problemFor} one resolved name.
 *
 * @param template the template, valid ({@link #problem} finds nothing); surrounding white space is dropped
 */
public record DeadLetterTopic(String template) {

    /** Stands for the message's own topic in a template. */
    public static final String PLACEHOLDER = "{topic}";
    /** Kafka's longest topic name. */
    public static final int MAX_TOPIC_LENGTH = 249;

    private static final Pattern TOPIC_CHARACTERS = Pattern.compile("[A-Za-z0-9._-]+");

    public DeadLetterTopic {
        template = Objects.requireNonNull(template, "template").strip();
        String problem = problem(template).orElse(null);
        if (problem != null) {
            throw new IllegalArgumentException("dead-letter topic " + problem + ", but was '" + template + "'");
        }
    }

    /** The template of {@code value}, or empty when it is null or blank (dead-letter topics off). */
    public static Optional<DeadLetterTopic> of(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(new DeadLetterTopic(value.strip()));
    }

    /**
     * What is wrong with {@code template} as a rule it breaks ("must ..."), or empty when it is valid: it may hold
     * {@value #PLACEHOLDER} any number of times, and is otherwise a topic name.
     */
    public static Optional<String> problem(String template) {
        String example = template.strip().replace(PLACEHOLDER, "t");
        if (!TOPIC_CHARACTERS.matcher(example).matches() || example.equals(".") || example.equals("..")
                || example.length() > MAX_TOPIC_LENGTH) {
            return Optional.of("must be a Kafka topic name (letters, digits, '.', '_' or '-', at most "
                    + MAX_TOPIC_LENGTH + ") in which " + PLACEHOLDER + " stands for the message's topic");
        }
        if (template.strip().replace(PLACEHOLDER, "").isEmpty()) {
            return Optional.of("must name another topic than the message's own (" + PLACEHOLDER + ".DLT, say)");
        }
        return Optional.empty();
    }

    /** The dead-letter topic of a message of {@code topic}. */
    public String resolve(String topic) {
        return template.replace(PLACEHOLDER, topic);
    }

    /**
     * What is wrong with the dead-letter topic of {@code topic} (too long for Kafka, or {@code topic} itself, whose
     * consumers would get their dead letters back), or empty.
     */
    public Optional<String> problemFor(String topic) {
        String resolved = resolve(topic);
        if (resolved.length() > MAX_TOPIC_LENGTH) {
            return Optional.of("must give a topic name of at most " + MAX_TOPIC_LENGTH + " characters, but gives "
                    + resolved.length() + " for topic '" + topic + "'");
        }
        if (resolved.equals(topic)) {
            return Optional.of("must not be the message's own topic ('" + topic + "')");
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return template;
    }
}
