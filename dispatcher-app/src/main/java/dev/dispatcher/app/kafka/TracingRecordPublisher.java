package dev.dispatcher.app.kafka;

import dev.dispatcher.app.observe.MessageTracing;
import io.micrometer.tracing.Span;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;

/**
 * A {@link RecordPublisher} that gives every record a {@code PRODUCER} span: its parent is the {@code traceparent}
 * stored with the message (when present), and the record goes out with the span's own {@code traceparent}, so a
 * consumer's span is a child of the publish. The span ends with the record's result: an error for a failed send, a
 * {@code dispatcher.not_attempted} tag for a record that was never handed off.
 *
 * <p>A record whose span could not be recorded ({@link MessageTracing#mayRecord}) gets none and keeps its stored
 * context.
 *
 * <p>Spans start when the returned Mono is subscribed (on the relay's thread, not the send thread) and end exactly
 * once, on the result or on cancellation.
 */
final class TracingRecordPublisher implements RecordPublisher {

    static final String SPAN_NAME = "dispatcher publish";

    private final RecordPublisher delegate;
    private final MessageTracing tracing;

    TracingRecordPublisher(RecordPublisher delegate, MessageTracing tracing) {
        this.delegate = delegate;
        this.tracing = tracing;
    }

    @Override
    public Mono<List<PublishResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace) {
        return publishAll(List.of(new Lane(records, ordered)), pace).map(List::getFirst);
    }

    @Override
    public Mono<List<List<PublishResult>>> publishAll(List<Lane> lanes, Pace pace) {
        return Mono.defer(() -> {
            List<List<Span>> spans = new ArrayList<>(lanes.size());
            List<Lane> traced = new ArrayList<>(lanes.size());
            for (Lane lane : lanes) {
                List<Span> laneSpans = new ArrayList<>(lane.records().size());
                List<OutboundRecord> laneRecords = new ArrayList<>(lane.records().size());
                lane.records().forEach(record -> laneRecords.add(trace(record, laneSpans)));
                spans.add(laneSpans);
                traced.add(new Lane(laneRecords, lane.ordered()));
            }
            AtomicBoolean ended = new AtomicBoolean();
            return delegate.publishAll(traced, pace)
                    .doOnNext(results -> {
                        if (ended.compareAndSet(false, true)) {
                            for (int lane = 0; lane < spans.size(); lane++) {
                                List<Span> laneSpans = spans.get(lane);
                                for (int i = 0; i < laneSpans.size(); i++) {
                                    if (laneSpans.get(i) != null) {
                                        end(laneSpans.get(i), results.get(lane).get(i));
                                    }
                                }
                            }
                        }
                    })
                    .doFinally(signal -> {
                        if (ended.compareAndSet(false, true)) {
                            // cancelled or failed before any result: the spans say so and still end
                            spans.stream().flatMap(List::stream).filter(Objects::nonNull)
                                    .forEach(span -> span.tag("dispatcher.not_attempted", signal.toString()).end());
                        }
                    });
        });
    }

    /** The record with its span's context, the span added to {@code spans} (null when none could be recorded). */
    private OutboundRecord trace(OutboundRecord record, List<Span> spans) {
        if (!tracing.mayRecord(record.headers())) {
            spans.add(null); // no span could be recorded: the record keeps the context it was stored with
            return record;
        }
        Span span = tracing.start(SPAN_NAME, Span.Kind.PRODUCER, record.headers())
                .tag("messaging.system", "kafka")
                .tag("messaging.destination.name", record.topic());
        String id = record.headers().get("message-id");
        if (id != null) {
            span.tag("messaging.message.id", id);
        }
        spans.add(span);
        return new OutboundRecord(record.topic(), record.key(), record.value(),
                tracing.withContextOf(span, record.headers()));
    }

    private static void end(Span span, PublishResult result) {
        switch (result) {
            case PublishResult.Sent sent -> {
            }
            case PublishResult.Failed failed -> span.tag("dispatcher.failure", failed.failure().kind().name())
                    .error(new PublishFailed(failed.failure().description()));
            case PublishResult.NotYet notYet -> span.tag("dispatcher.not_attempted", notYet.reason());
            case PublishResult.NotSent notSent -> span.tag("dispatcher.not_attempted", notSent.reason());
        }
        span.end();
    }

    @Override
    public Mono<Boolean> probe(Duration timeout) {
        return delegate.probe(timeout);
    }

    @Override
    public Mono<Optional<SendFailure>> checkTopic(String topic) {
        return delegate.checkTopic(topic);
    }

    @Override
    public Mono<Void> awaitCreated(Collection<String> topics) {
        return delegate.awaitCreated(topics);
    }

    @Override
    public void close() {
        delegate.close();
    }

    /** Carries a send failure's description into the span's error; no stack trace. */
    static final class PublishFailed extends RuntimeException {
        PublishFailed(String description) {
            super(description, null, false, false);
        }
    }
}
