/**
 * Dispatcher's model and rules: message statuses and their legal transitions, leases, the transitions a worker
 * asks for, the sealed outcomes it gets back, the retry decision, and the rule for the messages of a topic that
 * cannot take them ({@link dev.dispatcher.domain.TopicOutage}).
 *
 * <p>Plain Java with no framework dependency (no Spring, Reactor, R2DBC or Kafka); {@code DomainDependencyTest}
 * keeps it that way. Everything here is immutable and thread-safe; time and randomness are passed in.
 */
package dev.dispatcher.domain;
