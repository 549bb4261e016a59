package dev.dispatcher.app.api;

import dev.dispatcher.app.store.InboxEntry;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;

/**
 * An inbox row as operators see it: the items of {@code GET /v1/inbox/{consumer}/dead-letters} and the body of a
 * replay. The key twice: {@code key} when it is text, and {@code keyBase64}, the key's bytes as received (any keyed
 * row; the only form of a key that is not text, such as an Avro key in Confluent's wire format). The value only by
 * its size; {@code payloadStored} false means it was not stored (over the consumer's limit, or refused by the
 * database), and such a row cannot be replayed.
 */
record InboxMessageView(String consumer, String messageId, long seq, String sourceTopic, int partition, long offset,
        String key, String keyBase64, String eventType, Object headers, Integer payloadSize, boolean payloadStored,
        String status, int attempts, long version, String visibleAfter, String leaseOwner, String leaseUntil,
        String receivedAt, String lastAttemptAt, String completedAt, String deadLetteredAt, String lastError) {

    static InboxMessageView of(InboxEntry e) {
        byte[] raw = e.keyBytes() != null ? e.keyBytes()
                : e.key() == null ? null : e.key().getBytes(StandardCharsets.UTF_8);
        return new InboxMessageView(e.consumer(), e.messageId(), e.seq(), e.sourceTopic(), e.partition(), e.offset(),
                e.key(), raw == null ? null : Base64.getEncoder().encodeToString(raw), e.eventType(),
                e.headersJson() == null ? Map.of() : ApiJson.JSON.readTree(e.headersJson()),
                e.payloadSize(), e.payloadStored(), e.status().name(), e.attempts(), e.version(),
                text(e.visibleAfter()), e.leaseOwner(), text(e.leaseUntil()), text(e.receivedAt()),
                text(e.lastAttemptAt()), text(e.completedAt()), text(e.deadLetteredAt()), e.lastError());
    }

    private static String text(Instant instant) {
        return instant == null ? null : instant.toString();
    }
}
