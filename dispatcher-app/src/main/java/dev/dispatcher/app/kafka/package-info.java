/**
 * The Kafka side behind one small adapter: publishing ordered runs of records and probing the cluster.
 * Publishing uses kafka-clients directly ({@code KafkaClientsPublisher} says why); nothing outside this package
 * sees a Kafka client type. Send work runs on the adapter's own thread, never on R2DBC's event loop;
 * producer callbacks only complete futures.
 */
package dev.dispatcher.app.kafka;
