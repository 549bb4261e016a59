package dev.dispatcher.load.blackbox;

import java.util.ArrayList;
import java.util.List;

/**
 * Hostile clients that each repeat one call, a virtual thread apiece, from {@link #start} until {@link #stop}: the
 * loop every attacker of a hostile run shares, so a call in flight always finishes and is counted.
 */
final class RepeatingClients {

    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;

    /** Starts {@code clients} threads named {@code name-i}, each calling {@code call} again as soon as it returns. */
    void start(int clients, String name, Runnable call) {
        running = true;
        for (int i = 0; i < clients; i++) {
            threads.add(Thread.ofVirtual().name(name + "-" + i).start(() -> {
                while (running) {
                    call.run();
                }
            }));
        }
    }

    /** Asks every client to stop after its call in flight, without waiting. */
    void stopAsking() {
        running = false;
    }

    /** Stops every client after its call in flight and waits for it. */
    void stop() throws InterruptedException {
        running = false;
        for (Thread thread : threads) {
            thread.join();
        }
    }
}
