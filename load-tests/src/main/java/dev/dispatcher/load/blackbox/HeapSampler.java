package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.PrometheusText;
import dev.dispatcher.load.bench.ServiceClient;
import java.time.Duration;

/**
 * Samples a service's heap from its Prometheus endpoint every {@link #EVERY} on a daemon thread: the heap after GC
 * ({@code jvm_gc_live_data_size_bytes}, Micrometer's long-lived pool after the last collection that shrank it) and
 * the lowest heap in use ({@code jvm_memory_used_bytes} of the heap pools, summed) since the last {@link #take}.
 */
final class HeapSampler implements AutoCloseable {

    static final Duration EVERY = Duration.ofSeconds(2);

    private final ServiceClient service;
    private final Thread thread;
    private long afterGc;
    private long trough = Long.MAX_VALUE;

    HeapSampler(ServiceClient service) {
        this.service = service;
        this.thread = Thread.ofPlatform().daemon().name("bench-heap-sampler").start(this::sample);
    }

    /** The heap after GC and the lowest heap in use since the last call. */
    record Heap(long afterGcBytes, long troughBytes) {
    }

    synchronized Heap take() {
        Heap heap = new Heap(afterGc, trough == Long.MAX_VALUE ? 0 : trough);
        trough = Long.MAX_VALUE;
        return heap;
    }

    private void sample() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                String exposition = service.prometheus();
                long used = PrometheusText.heapUsedBytes(exposition);
                long live = PrometheusText.liveDataBytes(exposition);
                synchronized (this) {
                    trough = Math.min(trough, used);
                    afterGc = live;
                }
                Thread.sleep(EVERY); // a sampling thread of the harness
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                // a missed sample: the next one counts
            }
        }
    }

    @Override
    public void close() {
        thread.interrupt();
    }
}
