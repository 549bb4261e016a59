package dev.dispatcher.app.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.dispatcher.domain.MessageHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** {@link DeadLetterTopic} templates and the records {@link DeadLetterRecords} builds. */
class DeadLetterRecordsTest {

    private static final Pattern KAFKA_TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,249}");

    @Example
    void aDeadLetterRecordKeepsTheMessageAndAddsWhyWhereFromAndHowOften() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("message-id", "m-1");
        headers.put(MessageHeaders.DEAD_LETTER_REASON, "an older reason");
        OutboundRecord r = DeadLetterRecords.of(DeadLetterTopic.of("{topic}.DLT").orElseThrow(), "orders", "k-1",
                null, "{}".getBytes(StandardCharsets.UTF_8), headers, "gave up after 3 attempts: 503", 3);

        assertThat(r.topic()).isEqualTo("orders.DLT");
        assertThat(r.key()).isEqualTo("k-1");
        assertThat(r.value()).isEqualTo("{}".getBytes(StandardCharsets.UTF_8));
        assertThat(r.headers()).containsExactly(Map.entry("message-id", "m-1"),
                Map.entry("dispatcher-dead-letter-reason", "gave up after 3 attempts: 503"),
                Map.entry("dispatcher-attempts", "3"), Map.entry("dispatcher-original-topic", "orders"));
    }

    @Example
    void aKeyThatIsNotTextTravelsInBase64InAHeaderOfItsOwn() {
        byte[] avro = {0, 0, 0, 0, 7, 2, 'k'};
        OutboundRecord r = DeadLetterRecords.of(DeadLetterTopic.of("dead-letters").orElseThrow(), "orders", null,
                avro, new byte[0], Map.of(), "permanent failure: 422", 1);

        assertThat(r.topic()).isEqualTo("dead-letters");
        assertThat(r.key()).isNull();
        assertThat(Base64.getDecoder().decode(r.headers().get(MessageHeaders.DEAD_LETTER_ORIGINAL_KEY_BASE64)))
                .isEqualTo(avro);
    }

    @Example
    void templatesAreCheckedAsTopicNames() {
        for (String valid : List.of("{topic}.DLT", "dlq", "dead.{topic}.{topic}", "  {topic}-dlt ")) {
            assertThat(DeadLetterTopic.problem(valid)).as(valid).isEmpty();
        }
        for (String invalid : List.of("{topic}/dlt", "{Topic}.DLT", "{topic", ".", "..", "{topic}", "x".repeat(250),
                "dl q")) {
            assertThat(DeadLetterTopic.problem(invalid)).as(invalid).isPresent();
            assertThatIllegalArgumentException().isThrownBy(() -> new DeadLetterTopic(invalid));
        }
        assertThat(DeadLetterTopic.of(" ")).isEmpty();
        assertThat(DeadLetterTopic.of(null)).isEmpty();
        assertThat(new DeadLetterTopic("{topic}.DLT").problemFor("orders")).isEmpty();
        assertThat(new DeadLetterTopic("orders").problemFor("orders")).isPresent();
        assertThat(new DeadLetterTopic("{topic}.DLT").problemFor("o".repeat(246))).isPresent();
    }

    @Property(tries = 1000)
    void aValidTemplateGivesAValidTopicForEveryTopicItFindsNoProblemWith(@ForAll("templates") String template,
            @ForAll("topics") String topic) {
        DeadLetterTopic dlt = new DeadLetterTopic(template);

        if (dlt.problemFor(topic).isEmpty()) {
            assertThat(dlt.resolve(topic)).matches(KAFKA_TOPIC).isNotEqualTo(topic).isNotIn(".", "..");
        } else {
            assertThat(dlt.resolve(topic).length() > DeadLetterTopic.MAX_TOPIC_LENGTH
                    || dlt.resolve(topic).equals(topic)).isTrue();
        }
    }

    @Provide
    Arbitrary<String> topics() {
        return Arbitraries.strings().withChars("ab.-_9").ofMinLength(1).ofMaxLength(249)
                .filter(t -> !t.equals(".") && !t.equals(".."));
    }

    @Provide
    Arbitrary<String> templates() {
        return Arbitraries.strings().withChars("ab.-_9").ofMaxLength(20).list().ofMinSize(1).ofMaxSize(3)
                .map(parts -> String.join(DeadLetterTopic.PLACEHOLDER, parts))
                .filter(t -> DeadLetterTopic.problem(t).isEmpty());
    }
}
