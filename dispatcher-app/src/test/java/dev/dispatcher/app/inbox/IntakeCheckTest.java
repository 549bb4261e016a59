package dev.dispatcher.app.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.inbox.IntakeCheck.Verdict;
import dev.dispatcher.app.kafka.ReceivedRecord;
import dev.dispatcher.app.kafka.ReceivedRecord.Header;
import dev.dispatcher.app.store.InboxRecord;
import dev.dispatcher.domain.MessageId;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link IntakeCheck}: every record gets a row PostgreSQL accepts ({@code text} and {@code jsonb} refuse NUL and
 * invalid UTF-8), a binary key is kept losslessly and handled, and a record is poison exactly when something of it
 * cannot be stored as received (checked against an independent strict decoder).
 */
class IntakeCheckTest {

    private static final long LIMIT = 1024;

    // ---- examples

    @Example
    void aTextRecordIsStoredAsReceived() {
        Verdict v = check(record(utf8("order-42"), List.of(header("message-id", "m-1"), header("event-type", "Placed"),
                header("x-tenant", "acme")), utf8("{\"n\":1}")));

        assertThat(v).isInstanceOf(Verdict.Text.class);
        InboxRecord row = v.row();
        assertThat(row.id()).isEqualTo(MessageId.of("m-1"));
        assertThat(row.key()).isEqualTo("order-42");
        assertThat(row.keyBytes()).isNull();
        assertThat(row.eventType()).isEqualTo("Placed");
        assertThat(row.headers()).containsEntry("x-tenant", "acme").hasSize(3);
        assertThat(row.payload()).isEqualTo(utf8("{\"n\":1}"));
        assertThat(row.deadLettered()).isFalse();
    }

    @Example
    void aConfluentWireFormatKeyIsKeptAsBytesAndTheRecordHandled() {
        byte[] avroKey = {0x00, 0x00, 0x00, 0x00, 0x07, 0x0c, 'a', 'b', 'c'};
        Verdict v = check(record(avroKey, List.of(header("message-id", "m-2")), utf8("{}")));

        assertThat(v).isInstanceOf(Verdict.BinaryKey.class);
        assertThat(v.row().key()).isNull();
        assertThat(v.row().keyBytes()).isEqualTo(avroKey);
        assertThat(v.row().rawKey()).isEqualTo(avroKey);
        assertThat(v.row().deadLettered()).isFalse();
    }

    @Example
    void aKeyThatIsNotUtf8IsKeptAsBytes() {
        byte[] latin1 = {'c', 'a', 'f', (byte) 0xE9};
        assertThat(check(record(latin1, List.of(), utf8("{}")))).isInstanceOf(Verdict.BinaryKey.class);
    }

    @Example
    void aHeaderValueThatIsNotUtf8IsPoisonButTheRestIsKept() {
        Verdict v = check(record(utf8("k"), List.of(header("message-id", "m-3"),
                new Header("x-bad", new byte[] {(byte) 0xC3, 0x28}), header("x-good", "yes")), utf8("{\"v\":1}")));

        assertThat(v).isInstanceOf(Verdict.Poison.class);
        assertThat(((Verdict.Poison) v).reason()).contains("header 'x-bad' is not UTF-8 text");
        assertThat(v.row().headers()).containsOnlyKeys("message-id", "x-good");
        assertThat(v.row().id()).isEqualTo(MessageId.of("m-3"));
        assertThat(v.row().key()).isEqualTo("k");
        assertThat(v.row().payload()).isEqualTo(utf8("{\"v\":1}"));
    }

    @Example
    void aNulInAHeaderValueOrNameIsPoisonAndTheReasonEscapesIt() {
        Verdict value = check(record(null, List.of(header("x-trace", "a\0b")), utf8("{}")));
        Verdict name = check(record(null, List.of(header("x\0name", "v")), utf8("{}")));

        assertThat(value).isInstanceOf(Verdict.Poison.class);
        assertThat(name).isInstanceOf(Verdict.Poison.class);
        assertThat(((Verdict.Poison) name).reason()).contains("'x\\u0000name'").doesNotContain("\0");
    }

    @Example
    void aMessageIdThatIsNotAValidIdIsPoisonStoredUnderItsPosition() {
        for (byte[] bad : List.of(utf8("x".repeat(256)), utf8("  "), new byte[0], new byte[] {(byte) 0xFF})) {
            Verdict v = check(new ReceivedRecord("orders", 3, 17, null, List.of(new Header("message-id", bad)),
                    utf8("{}")));
            assertThat(v).isInstanceOf(Verdict.Poison.class);
            assertThat(((Verdict.Poison) v).reason()).contains("message-id header is not a valid id");
            assertThat(v.row().id()).isEqualTo(MessageId.of("orders-3-17"));
        }
    }

    @Example
    void aRecordWithoutAMessageIdIsKnownByItsPosition() {
        Verdict v = check(new ReceivedRecord("orders", 1, 99, null, List.of(), utf8("{}")));
        assertThat(v).isInstanceOf(Verdict.Text.class);
        assertThat(v.row().id()).isEqualTo(MessageId.of("orders-1-99"));
    }

    @Example
    void aPositionIdOfAVeryLongTopicStillFitsAndStaysDistinct() {
        String a = "t".repeat(248) + "a";
        String b = "t".repeat(248) + "b";
        MessageId idA = IntakeCheck.positionId(a, 2_000_000_000, Long.MAX_VALUE);
        MessageId idB = IntakeCheck.positionId(b, 2_000_000_000, Long.MAX_VALUE);
        assertThat(idA.value()).hasSizeLessThanOrEqualTo(MessageId.MAX_LENGTH).endsWith("-2000000000-"
                + Long.MAX_VALUE);
        assertThat(idA).isNotEqualTo(idB);
    }

    @Example
    void aValueOverTheLimitIsPoisonAndNotStored() {
        Verdict v = check(record(utf8("k"), List.of(header("message-id", "m-4")), new byte[(int) LIMIT + 1]));
        Verdict atLimit = check(record(utf8("k"), List.of(header("message-id", "m-5")), new byte[(int) LIMIT]));

        assertThat(v).isInstanceOf(Verdict.Poison.class);
        assertThat(((Verdict.Poison) v).reason()).contains("value of 1025 bytes is over the consumer's limit of 1024");
        assertThat(v.row().payload()).isNull();
        assertThat(v.row().key()).isEqualTo("k");
        assertThat(atLimit).isInstanceOf(Verdict.Text.class);
    }

    @Example
    void theLastValueOfARepeatedHeaderWins() {
        Verdict v = check(record(null, List.of(header("message-id", "first"), header("message-id", "second")),
                utf8("{}")));
        assertThat(v.row().id()).isEqualTo(MessageId.of("second"));
    }

    @Example
    void aRecordTheDatabaseRefusedKeepsItsIdPositionAndRawKeyOnly() {
        InboxRecord row = check(record(utf8("k-1"), List.of(header("message-id", "m-6"), header("event-type", "E")),
                utf8("{}"))).row();
        InboxRecord refused = IntakeCheck.refusedByDatabase(row, "SQLSTATE 23514: check violated");

        assertThat(refused.id()).isEqualTo(row.id());
        assertThat(refused.offset()).isEqualTo(row.offset());
        assertThat(refused.key()).isNull();
        assertThat(refused.keyBytes()).isEqualTo(utf8("k-1"));
        assertThat(refused.headers()).isEmpty();
        assertThat(refused.eventType()).isNull();
        assertThat(refused.payload()).isNull();
        assertThat(refused.deadLetterReason()).contains("SQLSTATE 23514: check violated");
    }

    // ---- properties

    @Property(tries = 2000)
    void everyRecordGetsARowPostgresqlAccepts(@ForAll("records") ReceivedRecord record,
            @ForAll @IntRange(min = 1, max = 64) int limit) {
        InboxRecord row = IntakeCheck.check(record, limit).row();

        List<String> texts = new ArrayList<>(List.of(row.id().value(), row.topic()));
        for (String text : new String[] {row.key(), row.eventType(), row.deadLetterReason()}) {
            if (text != null) {
                texts.add(text);
            }
        }
        row.headers().forEach((name, value) -> {
            texts.add(name);
            texts.add(value);
        });
        assertThat(texts).allSatisfy(text -> {
            assertThat(text).doesNotContain("\0");
            assertThat(new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)).isEqualTo(text);
        });
        assertThat(row.id().value()).hasSizeLessThanOrEqualTo(MessageId.MAX_LENGTH);
        if (row.deadLetterReason() != null) {
            assertThat(row.deadLetterReason()).hasSizeLessThanOrEqualTo(IntakeCheck.MAX_REASON_LENGTH);
        }
    }

    @Property(tries = 2000)
    void theKeyIsAlwaysKeptLosslessly(@ForAll("records") ReceivedRecord record) {
        InboxRecord row = IntakeCheck.check(record, LIMIT).row();
        assertThat(row.rawKey()).isEqualTo(record.key());
        assertThat(row.key() == null || row.keyBytes() == null).isTrue();
    }

    @Property(tries = 2000)
    void aRecordIsPoisonExactlyWhenSomethingOfItCannotBeStoredAsReceived(@ForAll("records") ReceivedRecord record,
            @ForAll @IntRange(min = 1, max = 64) int limit) {
        Map<String, byte[]> last = new LinkedHashMap<>();
        record.headers().forEach(h -> last.put(h.name(), h.value()));
        boolean badHeader = last.entrySet().stream().anyMatch(h -> h.getKey().contains("\0")
                || h.getValue() != null && strictText(h.getValue()) == null);
        boolean badId = last.containsKey("message-id") && (last.get("message-id") == null
                || strictText(last.get("message-id")) == null || strictText(last.get("message-id")).isBlank()
                || strictText(last.get("message-id")).length() > MessageId.MAX_LENGTH);
        boolean tooLarge = record.payload().length > limit;

        Verdict v = IntakeCheck.check(record, limit);

        assertThat(v instanceof Verdict.Poison).isEqualTo(badHeader || badId || tooLarge);
        assertThat(v.row().payload() == null).isEqualTo(tooLarge);
        if (!tooLarge) {
            assertThat(v.row().payload()).isEqualTo(record.payload());
        }
        boolean textKey = record.key() == null || strictText(record.key()) != null;
        assertThat(v instanceof Verdict.BinaryKey).isEqualTo(!textKey && !(v instanceof Verdict.Poison));
        // the headers kept are exactly those that are text, with their values as received
        last.forEach((name, value) -> {
            String text = value == null ? "" : strictText(value);
            if (!name.contains("\0") && text != null) {
                assertThat(v.row().headers()).containsEntry(name, text);
            } else {
                assertThat(v.row().headers()).doesNotContainKey(name);
            }
        });
    }

    @Provide
    Arbitrary<ReceivedRecord> records() {
        Arbitrary<byte[]> raw = Arbitraries.oneOf(
                Arbitraries.bytes().array(byte[].class).ofMaxSize(12),
                Arbitraries.strings().withChars("aé€\0 ").ofMaxLength(8).map(IntakeCheckTest::utf8),
                Arbitraries.strings().ofMaxLength(8).map(IntakeCheckTest::utf8));
        Arbitrary<String> names = Arbitraries.oneOf(Arbitraries.of("message-id", "event-type", "x-a"),
                Arbitraries.strings().withChars("xy\0-").ofMinLength(1).ofMaxLength(4));
        Arbitrary<Header> headers = Combinators.combine(names, Arbitraries.oneOf(raw, Arbitraries.just(null)))
                .as(Header::new);
        Arbitrary<byte[]> ids = Arbitraries.oneOf(raw, Arbitraries.strings().alpha().ofMinLength(250).ofMaxLength(260)
                .map(IntakeCheckTest::utf8));
        return Combinators.combine(
                        Arbitraries.oneOf(raw, Arbitraries.just(null)),
                        headers.list().ofMaxSize(5),
                        ids.injectNull(0.5),
                        Arbitraries.bytes().array(byte[].class).ofMaxSize(80),
                        Arbitraries.integers().between(0, 5),
                        Arbitraries.longs().between(0, Long.MAX_VALUE))
                .as((key, hs, id, payload, partition, offset) -> {
                    List<Header> all = new ArrayList<>(hs);
                    if (id != null) {
                        all.add(new Header("message-id", id));
                    }
                    return new ReceivedRecord("topic.a", partition, offset, key, all, payload);
                });
    }

    // ---- helpers

    /** An independent strict decoding: the text, or null when not UTF-8 or holding NUL. */
    private static String strictText(byte[] bytes) {
        try {
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
            return text.contains("\0") ? null : text;
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static Verdict check(ReceivedRecord record) {
        return IntakeCheck.check(record, LIMIT);
    }

    private static ReceivedRecord record(byte[] key, List<Header> headers, byte[] payload) {
        return new ReceivedRecord("orders", 0, 5, key, headers, payload);
    }

    private static Header header(String name, String value) {
        return new Header(name, utf8(value));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
