/**
 * Metrics and logs with the names and tag values docs/contract.md fixes (operators' dashboards depend on them), and the
 * periodic run summary. Counters are Micrometer's; nothing here blocks.
 */
package dev.dispatcher.app.observe;
