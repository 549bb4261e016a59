package dev.dispatcher.app.source;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * A value kept for each source (its relay, its ingest, its stores), looked up by the source's name. Immutable, in
 * the order of the sources ({@code default} first).
 *
 * @param <T> the value's type
 */
public final class PerSource<T> {

    private final Map<String, T> values;

    private PerSource(Map<String, T> values) {
        this.values = values;
    }

    /** {@code value} of each source of {@code sources}, computed once here. */
    public static <T> PerSource<T> of(Sources sources, Function<Source, T> value) {
        Map<String, T> values = new LinkedHashMap<>();
        for (Source source : sources.all()) {
            values.put(source.name(), Objects.requireNonNull(value.apply(source), source.name()));
        }
        return new PerSource<>(values);
    }

    /** This value mapped for each source. */
    public <R> PerSource<R> map(Function<T, R> mapping) {
        Map<String, R> mapped = new LinkedHashMap<>();
        values.forEach((name, value) -> mapped.put(name, Objects.requireNonNull(mapping.apply(value), name)));
        return new PerSource<>(mapped);
    }

    /**
     * The value of the source named {@code source}.
     *
     * @throws UnknownSourceException if no source has that name
     */
    public T get(String source) {
        T value = values.get(source);
        if (value == null) {
            throw new UnknownSourceException(source, values.keySet());
        }
        return value;
    }

    /** The value of the {@code default} source. */
    public T defaultSource() {
        return get(Sources.DEFAULT);
    }

    /** Every value, {@code default}'s first. */
    public Collection<T> all() {
        return values.values();
    }

    /** Every value by its source's name, {@code default}'s first. */
    public Map<String, T> byName() {
        return values;
    }
}
