package dev.dispatcher.load.inprocess;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.Cluster;

/**
 * The {@code --failing-key} drain's fault, injected through the service's own configuration: the relay's producer
 * is given this partitioner ({@code spring.kafka.producer.properties[partitioner.class]}, a setting users have), and
 * it refuses every record of one key ({@code dispatcher.bench.failing-key} among the producer's properties) by
 * throwing, as a record the client keeps refusing would fail: the send fails at once with an error of that record
 * alone, which the relay classes as transient (its attempt spent, retried with backoff), and the key's head holds
 * back only its own rows. Every other record goes to the partition the producer's default partitioner picks for its
 * key ({@link BuiltInPartitioner#partitionForKey}); a record without a key to a random one. Needs the service on the
 * harness's class path (in-process).
 */
public final class FailingKeyPartitioner implements Partitioner {

    /** The producer property naming the failing key. */
    static final String FAILING_KEY = "dispatcher.bench.failing-key";

    private volatile String key;

    /** The service's command-line properties that make {@code failingKey}'s records fail. */
    static List<String> arguments(String failingKey) {
        return List.of("--spring.kafka.producer.properties[partitioner.class]=" + FailingKeyPartitioner.class.getName(),
                "--spring.kafka.producer.properties[" + FAILING_KEY + "]=" + failingKey);
    }

    @Override
    public void configure(Map<String, ?> configs) {
        Object configured = configs.get(FAILING_KEY);
        if (configured == null) {
            throw new IllegalArgumentException(FAILING_KEY + " must name the failing key");
        }
        key = configured.toString();
    }

    @Override
    public int partition(String topic, Object recordKey, byte[] keyBytes, Object value, byte[] valueBytes,
            Cluster cluster) {
        if (key.equals(recordKey)) {
            throw new IllegalStateException("injected by the benchmark's --failing-key: every record of key '" + key
                    + "' fails");
        }
        int partitions = cluster.partitionsForTopic(topic).size();
        return keyBytes == null ? ThreadLocalRandom.current().nextInt(partitions)
                : BuiltInPartitioner.partitionForKey(keyBytes, partitions);
    }

    @Override
    public void close() {
        // nothing held
    }
}
