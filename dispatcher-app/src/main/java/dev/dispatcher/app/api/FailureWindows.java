package dev.dispatcher.app.api;

import java.time.Clock;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * Failures per key in fixed windows: a key's window opens at its first failure and lasts {@code window}; once it
 * holds {@code limit} failures the key is blocked until the window ends, and its next failure after that opens a
 * new window. So a key makes at most {@code limit} failures per window.
 *
 * <p>Bounded memory whatever the keys (client addresses and user names, which an attacker chooses): at most
 * {@code maxKeys} windows are open, and a key longer than {@value #MAX_KEY_LENGTH} characters is cut to that
 * length. Windows are kept in the order they opened, which is also the order they end, so ended windows are
 * dropped from the head as time passes, and when all {@code maxKeys} are open the eldest (the nearest to its
 * end) makes room for the new one: a flood of new keys can shorten other keys' windows, never grow the table.
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
            open.remove(cut); // behind a window that opened later (the clock stepped back): not dropped yet
            window = null;
        }
        if (window == null) {
            if (open.size() >= maxKeys) {
                Iterator<Window> eldest = open.values().iterator();
                eldest.next();
                eldest.remove();
            }
            window = new Window(now);
            open.put(cut, window);
        }
        if (window.failures < Integer.MAX_VALUE) {
            window.failures++;
        }
    }

    /** Open windows (for tests). */
    synchronized int size() {
        return open.size();
    }

    private void dropEnded(long now) {
        Iterator<Window> windows = open.values().iterator();
        while (windows.hasNext() && ended(windows.next(), now)) {
            windows.remove();
        }
    }

    private boolean ended(Window window, long now) {
        return now - window.openedAt >= windowMillis;
    }

    private static String cut(String key) {
        return key.length() <= MAX_KEY_LENGTH ? key : key.substring(0, MAX_KEY_LENGTH);
    }
}
