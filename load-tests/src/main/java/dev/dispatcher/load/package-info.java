/**
 * The relay benchmark harness: drain, latency and sweep modes against a durable embedded PostgreSQL and an
 * in-process KRaft broker, each printing a {@code RESULT} line in the format DESIGN.md fixes. Lost and duplicate
 * counts always come from consuming the topic, never from the relay's own figures.
 */
package dev.dispatcher.load;
