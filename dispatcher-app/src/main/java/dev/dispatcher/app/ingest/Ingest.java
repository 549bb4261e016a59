package dev.dispatcher.app.ingest;

import dev.dispatcher.app.store.InsertOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.springframework.core.io.buffer.DataBuffer;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Takes one ingest request from its body to its stored rows: admitted by the ingest budget before the body is read
 * ({@link IngestBudget}: a request refused for room never has its body read), the body read within its limit and
 * {@code dispatcher.ingest.body-timeout}, its bytes counted in the budget as they arrive, parsed (on the event loop
 * that read it, a batch's items counted as it arrives), checked against the caller's {@link TopicGrant} and the backlog
 * ({@link BacklogGuard}), and written
 * through its lane ({@link IngestWriter}). Nothing is written unless every check passed; a refusal is an
 * {@link IngestProblem}, a database failure the store's error. Lazy; thread-safe. Knows nothing of HTTP: the caller
 * gives the body, its declared length and the caller's grant, and answers the {@link IngestResult}.
 */
public final class Ingest {

    /** How often the backlog is counted in the background; a request reads the last count. */
    public static final Duration BACKLOG_CHECKED_EVERY = Duration.ofSeconds(1);

    private final IngestRequestParser parser;
    private final IngestWriter writer;
    private final BacklogGuard backlog;
    private final IngestLimits limits;
    private final IngestBudget budget;
    private final Duration bodyTimeout;

    Ingest(IngestRequestParser parser, IngestWriter writer, BacklogGuard backlog, IngestLimits limits,
            IngestBudget budget, Duration bodyTimeout) {
        this.parser = parser;
        this.writer = writer;
        this.backlog = backlog;
        this.limits = limits;
        this.budget = budget;
        this.bodyTimeout = bodyTimeout;
    }

    /**
     * One message ({@code POST /v1/messages}): an {@link IngestResult.Message} once written or found.
     *
     * @param declared the body's declared length, or -1 when unknown
     * @param client who the request counts against in {@code dispatcher.ingest.max-concurrent-requests-per-client}
     * @param traceparent the trace context its publish span continues, or null
     */
    public Mono<IngestResult> one(Flux<DataBuffer> body, long declared, String client, TopicGrant grant,
            String traceparent) {
        return budget.admit(client, declared, limits.singleBodyBytes(), reservation ->
                RequestBodies.read(body, declared, limits.singleBodyBytes(), limits.singleBodyRule(), reservation,
                                bodyTimeout)
                        .flatMap(bytes -> parsed(bytes, parser::parseOne))
                        .map(message -> grant.check(message).withTraceparent(traceparent))
                        .flatMap(message -> backlog.check().then(writer.write(List.of(message), reservation)))
                        .map(outcomes -> IngestResult.Message.of(outcomes.get(0))));
    }

    /**
     * A batch ({@code POST /v1/messages/batch}): an {@link IngestResult.Batch} once every item is written or found,
     * all by one statement.
     *
     * @param declared the body's declared length, or -1 when unknown
     * @param client who the request counts against in {@code dispatcher.ingest.max-concurrent-requests-per-client}
     * @param traceparent the trace context the items' publish spans continue, or null
     */
    public Mono<IngestResult> batch(Flux<DataBuffer> body, long declared, String client, TopicGrant grant,
            String traceparent) {
        return budget.admit(client, declared, limits.batchBodyBytes(), reservation ->
                RequestBodies.read(counted(body), declared, limits.batchBodyBytes(), limits.batchBodyRule(),
                                reservation, bodyTimeout)
                        .flatMap(bytes -> parsed(bytes, parser::parseBatch))
                        .map(parsed -> grant.checkAll(parsed).stream()
                                .map(m -> m.withTraceparent(traceparent)).toList())
                        .flatMap(messages -> backlog.check().then(writer.write(messages, reservation)))
                        .map(Ingest::batchResult));
    }

    /** A batch body whose items are counted as it arrives ({@link BatchItemCount}), so one item too many ends it. */
    private Flux<DataBuffer> counted(Flux<DataBuffer> body) {
        return Flux.defer(() -> {
            BatchItemCount count = parser.batchItemCount();
            return RequestBodies.inspected(body, count::feed).doFinally(signal -> count.close());
        });
    }

    /**
     * {@code parse} of {@code body} on the calling thread (the event loop that read it), so the loop reads no further
     * bodies while it parses one: offloaded to the parallel scheduler, bodies of 1 MiB were read faster than they
     * were parsed and their copies outgrew a 256 MiB heap (LimitsQuickIT). A refusal is an error signal.
     */
    private static <T> Mono<T> parsed(byte[] body, Function<byte[], T> parse) {
        return Mono.fromCallable(() -> parse.apply(body));
    }

    private static IngestResult batchResult(List<InsertOutcome> outcomes) {
        List<IngestResult.Message> items = new ArrayList<>(outcomes.size());
        for (InsertOutcome outcome : outcomes) {
            items.add(IngestResult.Message.of(outcome));
        }
        return new IngestResult.Batch(items);
    }
}
