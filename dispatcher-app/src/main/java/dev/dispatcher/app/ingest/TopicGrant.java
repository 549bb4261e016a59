package dev.dispatcher.app.ingest;

import dev.dispatcher.app.store.IngestMessage;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The topics a caller may write: every topic, or the topics matching one of an API token's patterns
 * ({@code dispatcher.security.tokens[i].topics}), where {@code *} stands for any run of characters ({@code orders.*}
 * matches {@code orders.eu} and {@code orders.eu.created}, not {@code orders}). A Basic user or a JWT may write
 * every topic ({@link #ALL}).
 *
 * <p>A batch is all or nothing: one item outside the grant refuses the whole request
 * ({@link IngestProblem.TopicForbidden} naming the item and its topic), and nothing is written, like any other
 * refused item.
 *
 * @param patterns the configured patterns; empty means every topic
 */
public record TopicGrant(List<String> patterns, Pattern matcher) {

    public static final TopicGrant ALL = new TopicGrant(List.of(), null);

    public static TopicGrant of(List<String> patterns) {
        if (patterns.isEmpty()) {
            return ALL;
        }
        return new TopicGrant(List.copyOf(patterns), Pattern.compile(patterns.stream()
                .map(p -> Pattern.quote(p).replace("*", "\\E.*\\Q"))
                .collect(Collectors.joining("|"))));
    }

    public boolean allows(String topic) {
        return matcher == null || matcher.matcher(topic).matches();
    }

    /** {@code message} when the grant allows its topic; {@link IngestProblem.TopicForbidden} otherwise. */
    IngestMessage check(IngestMessage message) {
        if (!allows(message.topic())) {
            throw refused("topic", message.topic());
        }
        return message;
    }

    /** {@code messages} when the grant allows every topic; a refusal naming the first item that is not. */
    List<IngestMessage> checkAll(List<IngestMessage> messages) {
        for (int i = 0; i < messages.size(); i++) {
            if (!allows(messages.get(i).topic())) {
                throw refused("[" + i + "].topic", messages.get(i).topic());
            }
        }
        return messages;
    }

    private IngestProblem refused(String field, String topic) {
        return new IngestProblem.TopicForbidden(field, topic, "this token may not write topic '" + topic
                + "': it may write topics matching " + String.join(", ", patterns) + "; nothing was written");
    }
}
