package dev.dispatcher.load.gatling;

import dev.dispatcher.app.config.InboxProperties;
import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.JitWarmUp;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.blackbox.ServiceArguments;
import dev.dispatcher.load.inprocess.InboxRecords;
import dev.dispatcher.load.inprocess.WebhookReceiver;
import dev.dispatcher.load.mode.Backlog;
import dev.dispatcher.load.mode.Inbox;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The inbox webhook path worked untimed ({@code --inbox-records}), so that a training run of the AOT cache ({@code
 * load-tests/aot/train.sh}) profiles it beside ingest and the relay's drain: one inbox consumer configured as {@code
 * blackbox-inbox} configures it ({@link ServiceArguments#inbox}, the service's default concurrency), its webhook
 * handler POSTing to a {@link WebhookReceiver} in the harness that answers after {@value
 * Inbox#DEFAULT_RECEIVER_DELAY_MS} ms, on a topic of {@value InboxRecords#PARTITIONS} partitions created before the
 * service starts. The N records ({@code blackbox-inbox}'s: 64 keys, {@value Backlog#DEFAULT_PAYLOAD_BYTES}-byte
 * payloads) go in rounds of at most {@value #ROUND_RECORDS}: a round's records are produced at once (the consumer
 * takes them as they arrive, then works through the rest as a backlog), and the round ends when the receiver has
 * answered each of their ids {@code 2xx}. A round not done within {@link #ROUND_TIMEOUT} fails the run.
 *
 * @param env the servers
 * @param topic the consumer's topic
 * @param group the consumer's group
 * @param receiver the webhook's receiver, closed with this
 */
record InboxRounds(BenchEnvironment env, String topic, String group, WebhookReceiver receiver)
        implements AutoCloseable {

    /** The most records of one round. */
    static final int ROUND_RECORDS = 20_000;
    /** The longest one round may take. */
    static final Duration ROUND_TIMEOUT = Duration.ofMinutes(10);

    /** Creates the topic {@code gatling.inbox.<run>} and starts the receiver; the service is started after this. */
    static InboxRounds start(BenchEnvironment env, String run) {
        String topic = "gatling.inbox." + run;
        env.createTopic(topic, InboxRecords.PARTITIONS);
        return new InboxRounds(env, topic, "gatling-inbox-" + run,
                new WebhookReceiver(Duration.ofMillis(Inbox.DEFAULT_RECEIVER_DELAY_MS), 0));
    }

    /** The service's command-line settings of the consumer. */
    List<String> serviceArguments() {
        return ServiceArguments.inbox(topic, group, receiver.url("/hook"),
                InboxProperties.Consumer.DEFAULT_CONCURRENCY, List.of());
    }

    /**
     * {@code records} records through {@code service}'s consumer, in rounds; returns the records and the rounds.
     *
     * @throws IllegalStateException when the receiver has not answered every id of a round within {@link
     *     #ROUND_TIMEOUT}
     */
    JitWarmUp.Result run(ServiceProcess service, int records) throws Exception {
        InboxRecords produce = new InboxRecords(env, topic);
        int rounds = 0;
        for (int left = records; left > 0; left -= ROUND_RECORDS) {
            int n = Math.min(left, ROUND_RECORDS);
            rounds++;
            long before = receiver.effects();
            Progress progress = Progress.of("inbox round " + rounds);
            produce.produce(n, Backlog.DEFAULT_PAYLOAD_BYTES);
            long done = receiver.awaitEffects(before, n, ROUND_TIMEOUT, progress);
            if (done < n) {
                throw new IllegalStateException("inbox round " + rounds + ": the receiver answered " + done + " of "
                        + n + " records 2xx within " + ROUND_TIMEOUT.toMinutes() + " minutes (consumer bench on "
                        + topic + "); see the service's log " + service.log());
            }
            System.out.printf(Locale.ROOT, "inbox round %d: %d records in %.1f s%n", rounds, n, progress.seconds());
        }
        return new JitWarmUp.Result(records, rounds);
    }

    @Override
    public void close() {
        receiver.close();
    }
}
