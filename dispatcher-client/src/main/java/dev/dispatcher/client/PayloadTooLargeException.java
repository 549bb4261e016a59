package dev.dispatcher.client;

/**
 * A message whose payload is larger than the writer allows ({@link OutboxWriter#withMaxPayloadSize}, {@link
 * JdbcOutboxWriter#withMaxPayloadSize}; {@code dispatcher.client.max-payload-size} with the Spring Boot starter),
 * refused before anything is sent to the database: a row the relay could not publish (Kafka's {@code
 * max.request.size}, the broker's {@code message.max.bytes}) would only be dead-lettered later, and a large one holds
 * the relay's memory meanwhile. The message names the limit and the size.
 */
public final class PayloadTooLargeException extends IllegalArgumentException {

    private final long size;
    private final long limit;

    PayloadTooLargeException(OutboxMessage message, long limit) {
        super("the payload of message " + message.id() + " to topic " + message.topic() + " is "
                + message.payloadUnsafe().length + " bytes, more than the writer's limit of " + limit
                + " bytes (maxPayloadSize; dispatcher.client.max-payload-size with the starter)");
        this.size = message.payloadUnsafe().length;
        this.limit = limit;
    }

    /** The payload's size in bytes. */
    public long size() {
        return size;
    }

    /** The writer's limit in bytes. */
    public long limit() {
        return limit;
    }
}
