package dev.dispatcher.app.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The cheap check that spares the publisher encoding a record's key and headers to size it never lets a record
 * above a topic's limit through: whenever it says a record cannot exceed a limit, the producer's own upper bound of
 * the record's size (the one the publisher compares with the limit) is within it.
 */
class RecordSizeBoundPropertiesTest {

    @Property(tries = 2000)
    void aRecordTheCheapCheckLetsThroughIsWithinTheLimit(@ForAll("records") OutboundRecord record) {
        int size = KafkaClientsPublisher.size(record);

        assertThat(KafkaClientsPublisher.mayExceed(record, size - 1))
                .as("a limit one byte below the record's size").isTrue();
    }

    @Example
    void aSmallRecordFarBelowTheLimitIsNotSized() {
        OutboundRecord record = new OutboundRecord("t", "key", new byte[256], Map.of("message-id", "m-1"));

        assertThat(KafkaClientsPublisher.mayExceed(record, 1_048_588)).isFalse();
        assertThat(KafkaClientsPublisher.mayExceed(record, 300)).isTrue();
    }

    @Provide
    Arbitrary<OutboundRecord> records() {
        Arbitrary<String> text = Arbitraries.strings().all().ofMaxLength(40); // surrogates, NULs, any plane
        Arbitrary<Map<String, String>> headers = Arbitraries.maps(text, text).ofMaxSize(14)
                .map(LinkedHashMap::new);
        Arbitrary<byte[]> values = Arbitraries.integers().between(0, 5_000).map(byte[]::new);
        return net.jqwik.api.Combinators.combine(text.injectNull(0.2), values, headers)
                .as((key, value, h) -> new OutboundRecord("topic", key, value, h));
    }
}
