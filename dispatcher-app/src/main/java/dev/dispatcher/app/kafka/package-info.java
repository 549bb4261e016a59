/**
 * The Kafka side behind small adapters: publishing ordered runs of records ({@link
 * dev.dispatcher.app.kafka.RecordPublisher}), receiving polled batches for the inbox ({@link
 * dev.dispatcher.app.kafka.RecordReceiver}, reactor-kafka), probing the cluster ({@link
 * dev.dispatcher.app.kafka.ClusterCheck}) and classifying send errors once, by kind and by the smallest thing that
 * failed: record, topic or broker ({@link dev.dispatcher.app.kafka.KafkaFailures}); the relay's record formats
 * ({@link dev.dispatcher.app.kafka.RecordFormat}: plain, CloudEvents binary and structured) and dead-letter records
 * ({@link dev.dispatcher.app.kafka.DeadLetterPublisher}, shared by the relay and the inbox). Publishing uses kafka-clients directly ({@code KafkaClientsPublisher}
 * says why). Nothing outside this package sees a Kafka client type (an ArchUnit rule in the service's tests keeps
 * it so). Send work runs on the adapter's own thread, never on R2DBC's event loop, and never waits there for one
 * topic's metadata (topics are looked up first, off that thread); producer callbacks only complete futures.
 */
package dev.dispatcher.app.kafka;
