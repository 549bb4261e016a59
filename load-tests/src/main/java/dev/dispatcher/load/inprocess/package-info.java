/**
 * The in-process modes ({@code drain}, {@code latency}, {@code sweep}, {@code inbox}): the Dispatcher service
 * started in the harness's JVM through its public entry point ({@link dev.dispatcher.load.inprocess.InProcessService})
 * and driven as an operator would, through SQL and HTTP. For CI's quick runs and {@code exec:java}; figures that
 * count come from the service jar ({@code dev.dispatcher.load.blackbox}).
 */
package dev.dispatcher.load.inprocess;
