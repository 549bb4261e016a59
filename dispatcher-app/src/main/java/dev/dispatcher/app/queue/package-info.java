/**
 * The leased-queue kernel shared by the outbox relay and every inbox consumer: {@link
 * dev.dispatcher.app.queue.ClaimLoop} (gating, claiming, lease renewal, the classified write with its retry, outcome
 * counting, draining) driven by a {@link dev.dispatcher.app.queue.BatchStrategy} ("publish these lanes", "run the
 * handlers"), over the store's {@code LeasedQueue} port; plus the primitives it is built from ({@link
 * dev.dispatcher.app.queue.WakeSignal}, {@link dev.dispatcher.app.queue.WorkLimiter}) and scheduled retention.
 */
package dev.dispatcher.app.queue;
