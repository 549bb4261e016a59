package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.bench.RampUp;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.inprocess.InboxCeilings;
import dev.dispatcher.load.inprocess.InboxRecords;
import dev.dispatcher.load.inprocess.WebhookReceiver;
import dev.dispatcher.load.mode.BlackBoxInbox;
import dev.dispatcher.load.mode.Inbox;
import dev.dispatcher.load.mode.Ordering;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.FreshStart;
import dev.dispatcher.load.result.InboxDrain;
import dev.dispatcher.load.result.Round;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code blackbox-inbox}: the inbox webhook path as users deploy it. N records ({@code message-id} headers, 6
 * partitions, 64 keys) are produced to a fresh topic first; then the service jar is launched ({@code java -jar}, the
 * JVM options of {@code -Ddispatcher.bench.service-jvm-options}) with one inbox consumer whose webhook handler POSTs
 * to the harness's {@link WebhookReceiver}, so it starts on a standing backlog, as a new instance after a deploy or a
 * scale-out does. The receiver counts each id's first {@code 2xx} in the second since the launch it was answered in:
 * {@link RampUp} gives the steady rate and {@code time_to_80pct_s}. Then, with {@code --warm-n} above 0, that many
 * records are produced to the running service, timed from before the first until every effect was seen: the warm
 * rate, which is {@code msgs_per_s}. The ceiling is the receiver alone, driven by an HTTP client at the consumer's
 * concurrency ({@link InboxCeilings#receiver}), measured before the launch: the receiver's own code is then compiled
 * before the service meets it, so the fresh start times the service's warm-up, not the receiver's. {@code lost}:
 * produced ids never answered {@code 2xx}; {@code duplicates}: ids answered {@code 2xx} more than once. RESULT
 * {@code inbox-drain} with {@code "service_jar":true}.
 */
public final class BlackBoxInboxBenchmark {

    private BlackBoxInboxBenchmark() {
    }

    public static InboxDrain run(BenchEnvironment env, BlackBoxInbox b) throws Exception {
        String schema = env.schema("blackbox_inbox");
        String topic = "inbox-" + schema;
        env.createTopic(topic, InboxRecords.PARTITIONS);
        InboxRecords records = new InboxRecords(env, topic);
        List<String> jvmOptions = Services.jvmOptions("");
        try (WebhookReceiver receiver = new WebhookReceiver(Duration.ofMillis(b.receiverDelayMs()), 0)) {
            double ceiling = InboxCeilings.receiver(receiver, b.concurrency(), Math.min(b.n(), Inbox.CEILING_MAX_N));
            Set<String> ids = new HashSet<>(records.produce(b.n(), b.payloadBytes()));
            try (Connection c = env.jdbc(schema); Statement s = c.createStatement()) {
                s.execute("CHECKPOINT"); // every timed phase starts from a fresh checkpoint, as the other drains
            }
            long launched = System.nanoTime();
            receiver.countEachSecondFrom(launched);
            FreshStart fresh;
            double warmRate = 0;
            List<String> arguments = ServiceArguments.inbox(topic, "bench-" + schema, receiver.url("/hook"),
                    b.concurrency(), b.serviceArgs());
            try (ServiceProcess service = Services.start(env, new ServiceProcess.Launch.Jar(
                    ServiceProcess.defaultJar()), jvmOptions, schema, arguments, "blackbox-inbox-service")) {
                double startup = (System.nanoTime() - launched) / 1e9;
                double startupCpu = service.cpu().toNanos() / 1e9;
                long done = await(receiver, 0, b.n(), Progress.since("blackbox-inbox fresh", launched));
                double freshRate = b.n() / ((done - receiver.firstEffectNanos()) / 1e9);
                RampUp ramp = RampUp.of(receiver.effectsEachSecond());
                System.out.println("fresh start: records handled per second from the launch: " + ramp.eachSecond());
                System.out.printf(Locale.ROOT, "fresh start: healthy %.1f s after the launch (%.1f s of CPU); %.0f"
                        + " msgs/s first to last effect, steady %.0f msgs/s (%.2f of the ceiling), 0.8 of it first"
                        + " reached %d s after the launch%n", startup, startupCpu, freshRate, ramp.steadyPerS(),
                        ramp.steadyPerS() / ceiling, ramp.timeTo80pctS());
                fresh = new FreshStart(b.n(), Round.one(startup), Round.one(startupCpu), ramp.timeTo80pctS(),
                        Round.one(freshRate), Round.one(ramp.steadyPerS()), String.join(" ", jvmOptions));
                if (b.warmN() > 0) {
                    long before = receiver.effects();
                    long start = System.nanoTime();
                    ids.addAll(records.produce(b.warmN(), b.payloadBytes()));
                    long end = await(receiver, before, b.warmN(), Progress.since("blackbox-inbox warm", start));
                    warmRate = b.warmN() / ((end - start) / 1e9);
                    System.out.printf(Locale.ROOT, "warm: %d records produced to the running service, handled at"
                            + " %.0f msgs/s (%.2f of the ceiling)%n", b.warmN(), warmRate, warmRate / ceiling);
                }
            }
            long lost = receiver.lost(ids);
            long duplicates = receiver.duplicateEffects();
            System.out.printf(Locale.ROOT, "blackbox-inbox: %d records, lost %d, duplicate effects %d; receiver calls"
                    + " %d%n", ids.size(), lost, duplicates, receiver.calls());
            boolean warm = b.warmN() > 0;
            double rate = warm ? warmRate : fresh.freshSteadyMsgsPerS();
            return new InboxDrain(env.fsync(), Common.BROKERS, Ordering.NONE.text(), Inbox.KEYS, b.payloadBytes(),
                    warm ? b.n() : 0, Inbox.Handler.WEBHOOK.text(), warm ? b.warmN() : b.n(), Round.one(rate),
                    Round.one(ceiling), Round.two(rate / ceiling), lost, duplicates, b.concurrency(),
                    b.receiverDelayMs(), 0, false, null, false, null, true, fresh,
                    Round.two(fresh.freshSteadyMsgsPerS() / ceiling), null);
        }
    }

    /**
     * Waits (10 minutes at most) until the receiver has {@code n} more distinct effects than {@code before}; returns
     * {@link System#nanoTime()} when it saw them all.
     */
    private static long await(WebhookReceiver receiver, long before, int n, Progress progress)
            throws InterruptedException {
        long done = receiver.awaitEffects(before, n, Duration.ofMinutes(10), progress);
        long at = System.nanoTime();
        if (done < n) {
            System.out.printf(Locale.ROOT, "blackbox-inbox: only %d of %d effects within 10 minutes%n", done, n);
        }
        return at;
    }
}
