package dev.dispatcher.app.api;

import java.time.Clock;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.TreeMap;

/**
 * Failures per key in fixed windows: a key's window opens at its first failure and lasts {@code window}; once it
 * holds {@code limit} failures the key is blocked until the window ends, and its next failure after that opens a
 * new window. So a key makes at most {@code limit} failures per window.
 *
 * <p>Bounded memory whatever the keys (client addresses and user names, which an attacker chooses): at most
 * {@code maxKeys} windows are open, and a key longer than {@value #MAX_KEY_LENGTH} characters is cut to that
 * length. Windows are kept in the order they opened, which is also the order they end, so ended windows are
 * dropped from the head as time passes. When all {@code maxKeys} are open, a new window takes the place of one
 * with the fewest failures (the eldest of those): a flood of new keys, one failure each (addresses or names
 * churned to reset a guesser's count), only displaces windows of one failure, never a guesser's that holds more,
 * and never grows the table.
 *
 * <p>Thread-safe: every method holds this object's lock for a few map operations.
 */
final class FailureWindows {

    static final int MAX_KEY_LENGTH = 128;

    private final int limit;
    private final long windowMillis;
    private final int maxKeys;
    private final Clock clock;
    /** Open windows by key, eldest first; guarded by {@code this}. */
    private final LinkedHashMap<String, Window> open = new LinkedHashMap<>();
    /** The keys of {@link #open} by their failures (capped at the limit), each set eldest first; guarded too. */
    private final TreeMap<Integer, LinkedHashSet<String>> byFailures = new TreeMap<>();

    /** A key's open window: when it opened and the failures counted in it. */
    private static final class Window {
        final long openedAt;
        int failures;

        Window(long openedAt) {
            this.openedAt = openedAt;
        }
    }

    FailureWindows(int limit, Duration window, int maxKeys, Clock clock) {
        if (limit < 1 || maxKeys < 1 || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("limit and maxKeys must be positive and window longer than zero");
        }
        this.limit = limit;
        this.windowMillis = window.toMillis();
        this.maxKeys = maxKeys;
        this.clock = clock;
    }

    /** How much longer {@code key} stays blocked; {@link Duration#ZERO} when it is not blocked. */
    synchronized Duration blockedFor(String key) {
        long now = clock.millis();
        dropEnded(now);
        Window window = open.get(cut(key));
        if (window == null || window.failures < limit || ended(window, now)) {
            return Duration.ZERO;
        }
        return Duration.ofMillis(window.openedAt + windowMillis - now);
    }

    /** Counts one failure of {@code key}, opening its window when it has none. */
    synchronized void fail(String key) {
        long now = clock.millis();
        dropEnded(now);
        String cut = cut(key);
        Window window = open.get(cut);
        if (window != null && ended(window, now)) {
            remove(cut); // behind a window that opened later (the clock stepped back): not dropped yet
            window = null;
        }
        if (window == null) {
            if (open.size() >= maxKeys) {
                Map.Entry<Integer, LinkedHashSet<String>> fewest = byFailures.firstEntry();
                remove(fewest.getValue().iterator().next());
            }
            window = new Window(now);
            open.put(cut, window);
        } else {
            unfile(cut, window);
        }
        if (window.failures < Integer.MAX_VALUE) {
            window.failures++;
        }
        byFailures.computeIfAbsent(bucket(window), b -> new LinkedHashSet<>()).add(cut);
    }

    /** Forgets {@code key}'s window, as if it had never failed. */
    synchronized void clear(String key) {
        remove(cut(key));
    }

    /** Open windows (for tests). */
    synchronized int size() {
        return open.size();
    }

    private void dropEnded(long now) {
        Iterator<Map.Entry<String, Window>> windows = open.entrySet().iterator();
        while (windows.hasNext()) {
            Map.Entry<String, Window> eldest = windows.next();
            if (!ended(eldest.getValue(), now)) {
                return;
            }
            windows.remove();
            unfile(eldest.getKey(), eldest.getValue());
        }
    }

    private void remove(String key) {
        Window window = open.remove(key);
        if (window != null) {
            unfile(key, window);
        }
    }

    /** Takes {@code key} out of its {@link #byFailures} set. */
    private void unfile(String key, Window window) {
        int bucket = bucket(window);
        LinkedHashSet<String> keys = byFailures.get(bucket);
        if (keys != null && keys.remove(key) && keys.isEmpty()) {
            byFailures.remove(bucket);
        }
    }

    /** Past the limit a window's failures change nothing: one set holds every blocked key. */
    private int bucket(Window window) {
        return Math.min(window.failures, limit);
    }

    private boolean ended(Window window, long now) {
        return now - window.openedAt >= windowMillis;
    }

    private static String cut(String key) {
        return key.length() <= MAX_KEY_LENGTH ? key : key.substring(0, MAX_KEY_LENGTH);
    }
}
