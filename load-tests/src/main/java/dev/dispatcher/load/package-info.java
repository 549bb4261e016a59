/**
 * The benchmark harness's entry point ({@link dev.dispatcher.load.RelayBenchmark}). The modes are types ({@code
 * mode}), their results too ({@code result}); in-process modes start the service in this JVM ({@code inprocess}),
 * black-box modes run it in its own ({@code blackbox}); fixed references ({@code reference}) and shared
 * infrastructure ({@code bench}) beside them. Lost and duplicate counts always come from consuming the topic, never
 * from the relay's own figures.
 */
package dev.dispatcher.load;
