package dev.dispatcher.app.api;

import dev.dispatcher.app.store.OperatorMutation;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.springframework.http.ResponseEntity;

/**
 * Renders an operator mutation's result, one way for the outbox's and the inbox's rows: {@code Done} is {@code 200}
 * with the row and its {@code ETag: "<version>"}; {@code NotFound} a {@code 404}; a stale {@code If-Match}, an
 * illegal move and a lost race each a {@code 409} problem carrying the current row under {@code current}, so the
 * operator decides on what is there now.
 */
final class MutationResults {

    private MutationResults() {
    }

    /**
     * The response to {@code result}.
     *
     * @param subject the message as the problem details name it ({@code message <id>})
     * @param notFound the detail of the {@code 404}
     * @param view the row as the response body shows it
     * @param version the row's version
     */
    static <E, V> ResponseEntity<V> respond(OperatorMutation<E> result, String subject, String notFound,
            Function<E, V> view, ToLongFunction<E> version) {
        return switch (result) {
            case OperatorMutation.Done<E> done -> ResponseEntity.ok().eTag(etag(version.applyAsLong(done.after())))
                    .body(view.apply(done.after()));
            case OperatorMutation.NotFound<E> missing -> throw ApiProblem.notFound(notFound);
            case OperatorMutation.VersionMismatch<E> mismatch -> throw ApiProblem.conflict(ProblemType.VERSION_MISMATCH,
                    subject + " is at version " + version.applyAsLong(mismatch.current()) + ", not "
                            + mismatch.expected() + " (If-Match); read it again")
                    .with("current", view.apply(mismatch.current()));
            case OperatorMutation.IllegalMove<E> illegal -> throw ApiProblem.conflict(ProblemType.ILLEGAL_TRANSITION,
                    subject + " " + illegal.reason()).with("current", view.apply(illegal.current()));
            case OperatorMutation.ConcurrencyConflict<E> conflict -> throw ApiProblem.conflict(
                    ProblemType.CONCURRENCY_CONFLICT, subject + " changed while this request ran")
                    .with("current", view.apply(conflict.current()));
        };
    }

    /** The strong entity tag of a version: {@code "<version>"}. */
    static String etag(long version) {
        return "\"" + version + "\"";
    }
}
