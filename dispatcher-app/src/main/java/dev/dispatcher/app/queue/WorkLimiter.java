package dev.dispatcher.app.queue;

import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * Runs at most {@code limit} pieces of work at once across every batch a loop has in flight, in submission order,
 * so a consumer's {@code concurrency} is exact whatever the number of in-flight batches (a per-batch
 * {@code flatMap} bound would allow the bound times the batches, and leave the destination idle at each batch's
 * tail).
 *
 * <p>Lock-free: a queue of waiting work and a counter of running work; whoever finishes work, or submits it, drains
 * the queue (one drainer at a time). Cancelling a returned Mono cancels its work, or drops it if it has not started.
 */
public final class WorkLimiter {

    private final int limit;
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger drainers = new AtomicInteger();
    private final Queue<Task<?>> waiting = new ConcurrentLinkedQueue<>();

    public WorkLimiter(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, but was " + limit);
        }
        this.limit = limit;
    }

    /** {@code work}, started when fewer than the limit run. Lazy: nothing is queued until subscription. */
    public <T> Mono<T> run(Mono<T> work) {
        Objects.requireNonNull(work, "work");
        return Mono.create(sink -> {
            Task<T> task = new Task<>(work, sink);
            sink.onCancel(task::cancel);
            waiting.add(task);
            drain();
        });
    }

    /** Work running now. */
    public int running() {
        return running.get();
    }

    private void drain() {
        if (drainers.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        do {
            while (running.get() < limit) {
                Task<?> task = waiting.poll();
                if (task == null) {
                    break;
                }
                running.incrementAndGet();
                task.start(this::finished);
            }
            missed = drainers.addAndGet(-missed);
        } while (missed != 0);
    }

    private void finished() {
        running.decrementAndGet();
        drain();
    }

    private static final class Task<T> {

        private static final Disposable CANCELLED = () -> { };

        private final Mono<T> work;
        private final MonoSink<T> sink;
        private final AtomicReference<Disposable> subscription = new AtomicReference<>();

        Task(Mono<T> work, MonoSink<T> sink) {
            this.work = work;
            this.sink = sink;
        }

        void start(Runnable done) {
            if (subscription.get() == CANCELLED) {
                done.run();
                return;
            }
            // the slot is freed before the outcome travels on, so whoever sees the outcome sees the slot free
            AtomicBoolean freed = new AtomicBoolean();
            Runnable free = () -> {
                if (freed.compareAndSet(false, true)) {
                    done.run();
                }
            };
            Disposable d = work.doOnCancel(free).subscribe(value -> {
                free.run();
                sink.success(value);
            }, error -> {
                free.run();
                sink.error(error);
            }, () -> {
                free.run();
                sink.success();
            });
            if (!subscription.compareAndSet(null, d)) {
                d.dispose(); // cancelled while starting
            }
        }

        void cancel() {
            Disposable d = subscription.getAndSet(CANCELLED);
            if (d != null && d != CANCELLED) {
                d.dispose();
            }
        }
    }
}
