package dev.dispatcher.app.observe;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * State kept per topic name, within a bound: at most {@code capacity} topics. Why: topic names come from the rows
 * applications write, so a producer allowed {@code orders.*} could otherwise grow the relay's per-topic state
 * (breakers, readiness answers, failure counters) with every new name it makes up.
 *
 * <p>When a new topic would take the table past its capacity, it first drops the topics not used for {@code idle}
 * (their state is stale by then), and if it is still full, as {@link WhenFull} says: drops the least recently used
 * topics down to nine tenths of the capacity, or refuses the new one (the caller counts it elsewhere). Either is
 * logged as a warning, at most once a minute, naming the table, and counted by its {@link Evictions} ({@code
 * dispatcher.topics.evicted{table, reason}}: {@link #evictionsIn}). Each dropped topic's value is handed to {@code
 * onDrop} (to unregister a meter or a breaker); a dropped topic starts afresh when it is met again. A sweep runs only
 * at capacity, one at a time, and a sweep that drops the least recently used frees a tenth of the table, so its
 * cost is spread over the topics added until the next one; a refusing table sweeps at most once a second.
 *
 * <p>Thread-safe and lock-free for lookups (a {@link ConcurrentHashMap} and a volatile last-use time per topic).
 * Topics added by other threads while a sweep runs may take the table past its capacity by at most the number of
 * those threads.
 *
 * @param <V> the state of one topic
 */
public final class TopicTable<V> {

    private static final Logger log = LoggerFactory.getLogger(TopicTable.class);

    /** The capacity of the relay's per-topic tables (breakers, readiness answers). */
    public static final int DEFAULT_CAPACITY = 10_000;
    /** How long a topic may go unused before a full table drops it first. */
    public static final Duration DEFAULT_IDLE = Duration.ofMinutes(10);
    /** How soon a refusing table that found nothing to drop looks again. */
    static final Duration SWEEP_BACKOFF = Duration.ofSeconds(1);
    /** How often a table warns that it is full. */
    static final Duration WARN_EVERY = Duration.ofMinutes(1);

    /** What a full table does with a new topic once no topic has been idle long enough to be dropped. */
    public enum WhenFull {
        /** Drops the least recently used topics (state that is cheap to rebuild). */
        DROP_LEAST_RECENTLY_USED,
        /** Keeps the topics it has and refuses the new one (state that must not churn, such as meters). */
        REFUSE_NEW
    }

    /** Why a full table let a topic go: the {@code reason} tag of {@code dispatcher.topics.evicted}. */
    public enum Eviction {
        /** Dropped because it had not been used for the table's idle time. */
        IDLE("idle"),
        /** Dropped, though used within the idle time, to make room (a dropping table). */
        LEAST_RECENTLY_USED("least_recently_used"),
        /** A new topic the table did not take (a refusing table). */
        REFUSED("refused");

        private final String tag;

        Eviction(String tag) {
            this.tag = tag;
        }

        public String tag() {
            return tag;
        }
    }

    /** Counts the topics a full table let go, by {@link Eviction}; cheap and never throws. */
    @FunctionalInterface
    public interface Evictions {

        /** Counts nothing. */
        Evictions NONE = (eviction, topics) -> {
        };

        void count(Eviction eviction, int topics);
    }

    /** The name of the counter of topics a full table let go ({@link #evictionsIn}). */
    public static final String EVICTED_METRIC = "dispatcher.topics.evicted";

    /**
     * Counts the evictions of the table called {@code table} (a tag value, {@code topic_breakers}) in {@code
     * registry}: {@value #EVICTED_METRIC}{@code {table, reason}}. One counter per tag set, shared by every table of
     * that name (the sources' relays), so their counts add up.
     */
    public static Evictions evictionsIn(MeterRegistry registry, String table) {
        Map<Eviction, Counter> counters = new EnumMap<>(Eviction.class);
        for (Eviction eviction : Eviction.values()) {
            counters.put(eviction, Counter.builder(EVICTED_METRIC)
                    .description("Topics a full per-topic table dropped or refused: its bound was reached")
                    .tag("table", table).tag("reason", eviction.tag()).register(registry));
        }
        return (eviction, topics) -> counters.get(eviction).increment(topics);
    }

    /** One topic's value and when it was last used (epoch millis of the table's clock). */
    private static final class Slot<V> {
        final V value;
        volatile long used;

        Slot(V value, long used) {
            this.value = value;
            this.used = used;
        }
    }

    private final String name;
    private final int capacity;
    private final int lowWater;
    private final long idleMillis;
    private final WhenFull whenFull;
    private final BiConsumer<String, V> onDrop;
    private final Evictions evictions;
    private final Clock clock;
    private final ConcurrentHashMap<String, Slot<V>> slots = new ConcurrentHashMap<>();
    private final AtomicBoolean sweeping = new AtomicBoolean();
    /** Written by the sweeping thread only. */
    private volatile long nextSweep;
    private volatile long nextWarning;

    /**
     * @param name what the table holds, for the warning ({@code "topic circuit breakers"})
     * @param capacity the most topics it holds, at least 10
     * @param idle how long a topic goes unused before a full table drops it first
     * @param onDrop called with each topic the table drops and its value; cheap, never throws
     * @param evictions counts the topics the full table drops or refuses
     */
    public TopicTable(String name, int capacity, Duration idle, WhenFull whenFull, BiConsumer<String, V> onDrop,
            Evictions evictions, Clock clock) {
        if (capacity < 10) {
            throw new IllegalArgumentException("capacity must be at least 10, but was " + capacity);
        }
        this.name = Objects.requireNonNull(name, "name");
        this.capacity = capacity;
        this.lowWater = capacity - capacity / 10;
        this.idleMillis = idle.toMillis();
        this.whenFull = Objects.requireNonNull(whenFull, "whenFull");
        this.onDrop = Objects.requireNonNull(onDrop, "onDrop");
        this.evictions = Objects.requireNonNull(evictions, "evictions");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * A table of state that is cheap to rebuild: {@link #DEFAULT_CAPACITY} topics, {@link #DEFAULT_IDLE}, the least
     * recently used dropped when full, each counted by {@code evictions}.
     */
    public static <V> TopicTable<V> dropping(String name, BiConsumer<String, V> onDrop, Evictions evictions,
            Clock clock) {
        return new TopicTable<>(name, DEFAULT_CAPACITY, DEFAULT_IDLE, WhenFull.DROP_LEAST_RECENTLY_USED, onDrop,
                evictions, clock);
    }

    /** The value of {@code topic}, marked used, or null when the table holds none. */
    public @Nullable V get(String topic) {
        Slot<V> slot = slots.get(topic);
        if (slot == null) {
            return null;
        }
        slot.used = clock.millis();
        return slot.value;
    }

    /**
     * The value of {@code topic}, marked used; made by {@code create} when the table holds none (at most once per
     * topic at a time). Null only when the table is full and refuses new topics.
     */
    public @Nullable V computeIfAbsent(String topic, Function<String, V> create) {
        V known = get(topic);
        if (known != null) {
            return known;
        }
        return compute(topic, (name, old) -> old != null ? old : create.apply(name));
    }

    /**
     * Sets the value of {@code topic} to what {@code remap} makes of the current one (null when none), atomically
     * per topic, and marks it used; returns the new value. {@code remap} must not return null. Null only when
     * {@code topic} is new and the table is full and refuses new topics ({@code remap} is then not called).
     */
    public @Nullable V compute(String topic, BiFunction<String, @Nullable V, V> remap) {
        long now = clock.millis();
        if (!slots.containsKey(topic) && !makeRoom(now)) {
            evictions.count(Eviction.REFUSED, 1);
            return null;
        }
        return slots.compute(topic, (name, old) -> {
            V value = Objects.requireNonNull(remap.apply(name, old == null ? null : old.value), "remapped value");
            if (old != null && old.value == value) {
                old.used = now;
                return old;
            }
            return new Slot<>(value, now);
        }).value;
    }

    /** Removes {@code topic} if it still holds {@code value} ({@code onDrop} is not called); whether it did. */
    public boolean remove(String topic, V value) {
        Slot<V> slot = slots.get(topic);
        return slot != null && slot.value == value && slots.remove(topic, slot);
    }

    /** How many topics the table holds. */
    public int size() {
        return slots.size();
    }

    public int capacity() {
        return capacity;
    }

    /** Whether a new topic fits, after a sweep if the table is full and a sweep is due. */
    private boolean makeRoom(long now) {
        if (slots.size() < capacity) {
            return true;
        }
        if (now >= nextSweep && sweeping.compareAndSet(false, true)) {
            try {
                sweep(now);
            } finally {
                sweeping.set(false);
            }
        }
        return whenFull == WhenFull.DROP_LEAST_RECENTLY_USED || slots.size() < capacity;
    }

    /** Drops the idle topics, then, when dropping, the least recently used down to the low-water mark. */
    private void sweep(long now) {
        List<Used<V>> used = new ArrayList<>(slots.size());
        for (var e : slots.entrySet()) {
            // a snapshot of each last use: sorting on the live, volatile times could break the sort's contract
            used.add(new Used<>(e.getKey(), e.getValue(), e.getValue().used));
        }
        int idleDropped = 0;
        for (Used<V> u : used) {
            if (now - u.at() >= idleMillis && now - u.slot().used >= idleMillis && drop(u)) {
                idleDropped++;
            }
        }
        int recentDropped = 0;
        if (whenFull == WhenFull.DROP_LEAST_RECENTLY_USED && slots.size() > lowWater) {
            used.sort(Comparator.comparingLong(Used::at));
            for (Used<V> u : used) {
                if (slots.size() <= lowWater) {
                    break;
                }
                if (now - u.at() < idleMillis && drop(u)) {
                    recentDropped++;
                }
            }
        }
        if (idleDropped > 0) {
            evictions.count(Eviction.IDLE, idleDropped);
        }
        if (recentDropped > 0) {
            evictions.count(Eviction.LEAST_RECENTLY_USED, recentDropped);
        }
        boolean full = slots.size() >= capacity;
        nextSweep = full ? now + SWEEP_BACKOFF.toMillis() : 0;
        if ((recentDropped > 0 || full) && now >= nextWarning) {
            nextWarning = now + WARN_EVERY.toMillis();
            if (full) {
                log.warn("{}: {} topics held, all used within {}; new topics are not tracked until some go idle ({}"
                        + " idle ones dropped)", name, slots.size(), Duration.ofMillis(idleMillis), idleDropped);
            } else {
                log.warn("{}: {} topics held at once (the capacity); dropped {} idle and {} least recently used ones,"
                        + " whose state starts afresh when they come again", name, capacity, idleDropped,
                        recentDropped);
            }
        }
    }

    private boolean drop(Used<V> u) {
        if (slots.remove(u.topic(), u.slot())) {
            onDrop.accept(u.topic(), u.slot().value);
            return true;
        }
        return false; // replaced meanwhile
    }

    private record Used<V>(String topic, Slot<V> slot, long at) {
    }

    @Override
    public String toString() {
        return "TopicTable[" + name + ", " + slots.size() + "/" + capacity + "]";
    }
}
