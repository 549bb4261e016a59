package dev.dispatcher.app.source;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import reactor.core.Disposable;

/**
 * Every source Dispatcher drains: {@code default} ({@code spring.r2dbc.*}) first, then {@code dispatcher.sources} in
 * order. Immutable; names are unique (validated with the configuration). {@link #close()} closes the pools of the
 * sources of {@code dispatcher.sources}, which were opened for them; the default source's pool is Boot's.
 */
public final class Sources implements AutoCloseable {

    /** The name of the source of {@code spring.r2dbc.*}. */
    public static final String DEFAULT = "default";

    private final List<Source> all;

    private Sources(List<Source> all) {
        this.all = List.copyOf(all);
    }

    /** {@code defaultSource} and {@code others}, in that order. */
    public static Sources of(Source defaultSource, List<Source> others) {
        if (!DEFAULT.equals(defaultSource.name())) {
            throw new IllegalArgumentException("the default source must be named " + DEFAULT);
        }
        List<Source> all = new ArrayList<>(others.size() + 1);
        all.add(defaultSource);
        all.addAll(others);
        return new Sources(all);
    }

    public List<Source> all() {
        return all;
    }

    public Source defaultSource() {
        return all.get(0);
    }

    /** The source named {@code name}, if there is one. */
    public Optional<Source> find(String name) {
        return all.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** How many sources there are (at least one). */
    public int size() {
        return all.size();
    }

    /** Closes the connection pools of every source but the default one. */
    @Override
    public void close() {
        for (Source source : all.subList(1, all.size())) {
            if (source.connections() instanceof Disposable pool) {
                pool.dispose();
            }
        }
    }
}
