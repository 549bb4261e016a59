package dev.dispatcher.app.api;

import dev.dispatcher.app.store.IngestResult;
import java.util.List;
import org.springframework.http.server.reactive.ServerHttpRequest;
import reactor.core.publisher.Mono;

/**
 * One {@code POST /v1/messages}: admitted by the ingest budget before its body is read ({@link IngestBudget}: a
 * request refused for room is answered without reading its body), its body read within the limit, parsed, checked
 * against the caller's {@link TopicGrant} and the backlog, and written through its lane. The same steps whichever
 * way the request came
 * ({@link MessagesController} or {@link IngestFastPath}). Thread-safe.
 */
final class SingleIngest {

    private final IngestRequestParser parser;
    private final IngestWriter ingest;
    private final BacklogGuard backlog;
    private final IngestLimits limits;
    private final IngestBudget budget;

    SingleIngest(IngestRequestParser parser, IngestWriter ingest, BacklogGuard backlog, IngestLimits limits,
            IngestBudget budget) {
        this.parser = parser;
        this.ingest = ingest;
        this.backlog = backlog;
        this.limits = limits;
        this.budget = budget;
    }

    /** The message's one result once written; a problem ({@link ApiProblem}) or the write's failure otherwise. */
    Mono<List<IngestResult>> write(ServerHttpRequest request, String traceparent, TopicGrant grant) {
        return budget.admit(request, limits.singleBodyBytes(), reservation ->
                RequestBodies.read(request, limits.singleBodyBytes(), limits.singleBodyRule())
                        .map(body -> grant.check(parser.parseOne(body)).withTraceparent(traceparent))
                        .flatMap(message -> backlog.check().then(ingest.write(List.of(message), reservation))));
    }
}
