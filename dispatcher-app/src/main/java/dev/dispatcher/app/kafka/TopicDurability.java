package dev.dispatcher.app.kafka;

/**
 * How durable an acknowledged record of a topic is: the relay publishes with {@code acks=all}, which waits for the
 * in-sync replicas only, and the topic's {@code min.insync.replicas} says how few of them may be enough. With 1, an
 * acknowledged record may sit on one broker alone, and losing that broker loses it.
 *
 * @param topic the topic
 * @param brokers brokers in the cluster
 * @param minInsyncReplicas the topic's {@code min.insync.replicas} (its own, or the broker default it inherits)
 */
public record TopicDurability(String topic, int brokers, int minInsyncReplicas) {

    /** Below this, an acknowledged record may live on a single broker. */
    static final int SAFE_MIN_INSYNC_REPLICAS = 2;
    /** A smaller cluster cannot keep two in-sync replicas through the loss of a broker anyway. */
    static final int CLUSTER_THAT_CAN_DO_BETTER = 3;

    /** Whether the cluster could keep acknowledged records on two brokers, but this topic does not ask it to. */
    public boolean weak() {
        return brokers >= CLUSTER_THAT_CAN_DO_BETTER && minInsyncReplicas < SAFE_MIN_INSYNC_REPLICAS;
    }

    /** The line an operator reads: the topic, what is wrong, why it matters, and the fix. */
    public String warning() {
        return "topic " + topic + " has min.insync.replicas=" + minInsyncReplicas + " on a cluster of " + brokers
                + " brokers: the relay publishes with acks=all, which then acknowledges a record held by one broker"
                + " alone, so losing that broker can lose published messages; set the topic's min.insync.replicas to "
                + SAFE_MIN_INSYNC_REPLICAS + " (with a replication factor of 3)";
    }
}
