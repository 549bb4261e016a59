package dev.dispatcher.app.ingest;

import java.util.concurrent.ConcurrentHashMap;

/**
 * How many of ingest's request slots each client holds, each bounded by its share ({@code
 * dispatcher.ingest.max-concurrent-requests-per-client}), so one client sending slow bodies cannot take every slot
 * of {@code max-concurrent-requests} from the other producers. A client is whatever key the caller gives: the
 * authenticated credential, or the client address when there is none (the HTTP layer decides).
 *
 * <p>Bounded: a client has an entry only while it holds a slot; the entry is removed when its count drops to zero,
 * so the table never holds more entries than requests in flight. Never blocks: each take and release is one
 * atomic update of the client's entry ({@link ConcurrentHashMap#merge}, {@link ConcurrentHashMap#computeIfPresent}),
 * which locks only that entry's bin for an addition. Like the global count, a take past the share is counted and then
 * undone, so two racing takes at the edge may both be refused; never more than the share is admitted.
 */
final class ClientShares {

    private final int share;
    private final ConcurrentHashMap<String, Integer> held = new ConcurrentHashMap<>();

    ClientShares(int share) {
        if (share < 1) {
            throw new IllegalArgumentException("a client's share must be at least 1, but was " + share);
        }
        this.share = share;
    }

    /** The most slots one client may hold. */
    int share() {
        return share;
    }

    /** Takes a slot for {@code client}; false, taking nothing, when it already holds its share. */
    boolean tryTake(String client) {
        if (held.merge(client, 1, Integer::sum) <= share) {
            return true;
        }
        release(client);
        return false;
    }

    /** Gives back one slot {@code client} took; its entry goes when it holds none. */
    void release(String client) {
        held.computeIfPresent(client, (key, count) -> count == 1 ? null : count - 1);
    }

    /** Slots {@code client} holds now. */
    int held(String client) {
        return held.getOrDefault(client, 0);
    }

    /** Clients holding at least one slot now. */
    int clients() {
        return held.size();
    }
}
