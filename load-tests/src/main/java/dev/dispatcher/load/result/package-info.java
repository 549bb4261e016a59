/**
 * What benchmarks report: {@link dev.dispatcher.load.result.BenchResult}, one record per RESULT name of docs/benchmarks.md,
 * rendered as the {@code RESULT {json}} line with Jackson.
 */
package dev.dispatcher.load.result;
