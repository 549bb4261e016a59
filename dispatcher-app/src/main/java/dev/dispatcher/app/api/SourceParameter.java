package dev.dispatcher.app.api;

import dev.dispatcher.app.source.UnknownSourceException;
import java.util.function.Function;

/**
 * The source a request names ({@code {source}} in the path, or {@code ?source=} on operator paths, {@code default}
 * when absent): a name no source has answers {@code 404} ({@link ProblemType#NOT_FOUND}) naming the known ones.
 */
final class SourceParameter {

    /** The value of an absent {@code ?source=}. */
    static final String DEFAULT = "default";
    static final String PATH_DOC = "the source's name: default (spring.r2dbc.*) or a dispatcher.sources name";
    static final String QUERY_DOC = "the source's name: a dispatcher.sources name; default: the database of"
            + " spring.r2dbc.*";

    private SourceParameter() {
    }

    /** {@code lookup(source)}, or the 404 problem when there is no such source. */
    static <T> T of(String source, Function<String, T> lookup) {
        try {
            return lookup.apply(source);
        } catch (UnknownSourceException e) {
            throw ApiProblem.notFound(e.getMessage());
        }
    }
}
