/**
 * The leased-queue kernel shared by the outbox relay and every inbox consumer: {@link
 * dev.dispatcher.app.queue.ClaimLoop} (gating, claiming, lease renewal, the classified write with its retry, outcome
 * counting, draining) driven by a {@link dev.dispatcher.app.queue.BatchStrategy} ("publish these lanes", "run the
 * handlers", called once per batch), over the store's {@code LeasedQueue} port, handing dead letters to a {@link
 * dev.dispatcher.app.queue.DeadLetterPort}; per-key order within a batch ({@link dev.dispatcher.app.queue.KeyRuns});
 * plus the primitives it is built from ({@link dev.dispatcher.app.queue.WakeSignal}, {@link
 * dev.dispatcher.app.queue.WorkLimiter}) and scheduled retention.
 */
package dev.dispatcher.app.queue;
