/**
 * What benchmarks report: {@link dev.dispatcher.load.result.BenchResult}, one record per RESULT name of DESIGN.md,
 * rendered as the {@code RESULT {json}} line with Jackson.
 */
package dev.dispatcher.load.result;
