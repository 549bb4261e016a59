/**
 * What every benchmark shares: the servers ({@link dev.dispatcher.load.bench.BenchEnvironment}), the harness's own
 * statements on the outbox, the consumer that counts what reached Kafka ({@link
 * dev.dispatcher.load.bench.Confirmations}), a service in its own JVM and the HTTP view of a running service, the
 * JIT warm-up, the latency load, progress lines and where the logs go.
 */
package dev.dispatcher.load.bench;
