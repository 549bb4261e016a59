/**
 * The benchmark modes as types: {@link dev.dispatcher.load.mode.BenchMode}, one record per mode, each parsing and
 * validating its own options and holding its documented defaults as named constants.
 */
package dev.dispatcher.load.mode;
