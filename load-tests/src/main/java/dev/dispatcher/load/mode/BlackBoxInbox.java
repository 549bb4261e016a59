package dev.dispatcher.load.mode;

import dev.dispatcher.app.config.InboxProperties;
import java.util.List;

/**
 * {@code blackbox-inbox}: the service jar ({@code java -jar}, its defaults but one webhook inbox consumer) launched on
 * a standing backlog of N records, then, once drained, a second batch to the warm service; against the receiver's
 * ceiling in the same run.
 *
 * @param n {@code --n}: records waiting when the service's JVM is launched (default {@value #DEFAULT_N}, {@value
 *     #QUICK_N} with {@code --quick})
 * @param warmN {@code --warm-n}: records of the second batch, produced once the first is drained (default {@value
 *     #DEFAULT_WARM_N}, {@value #QUICK_N} with {@code --quick}; 0: none)
 * @param payloadBytes {@code --payload-bytes}
 * @param concurrency {@code --concurrency}: the consumer's (default the service's, {@value
 *     InboxProperties.Consumer#DEFAULT_CONCURRENCY}), and the ceiling's
 * @param receiverDelayMs {@code --receiver-delay-ms}: the receiver's time per call (default {@value
 *     Inbox#DEFAULT_RECEIVER_DELAY_MS}, as {@code inbox})
 * @param serviceArgs {@code --service-args "--name=value ..."}: more settings on the service's command line
 * @param servers the servers
 */
public record BlackBoxInbox(int n, int warmN, int payloadBytes, int concurrency, int receiverDelayMs,
        List<String> serviceArgs, Servers servers) implements BenchMode {

    public static final String NAME = "blackbox-inbox";
    public static final int DEFAULT_N = 100_000;
    public static final int DEFAULT_WARM_N = 100_000;
    public static final int QUICK_N = 3_000;

    @Override
    public String name() {
        return NAME;
    }

    static BlackBoxInbox parse(Options o) {
        boolean quick = o.quick();
        return new BlackBoxInbox(o.integer("n", quick ? QUICK_N : DEFAULT_N, 1, Backlog.MAX_N),
                o.integer("warm-n", quick ? QUICK_N : DEFAULT_WARM_N, 0, Backlog.MAX_N),
                o.integer("payload-bytes", Backlog.DEFAULT_PAYLOAD_BYTES, 8, 1 << 20),
                o.integer("concurrency", InboxProperties.Consumer.DEFAULT_CONCURRENCY, 1, 1024),
                o.integer("receiver-delay-ms", Inbox.DEFAULT_RECEIVER_DELAY_MS, 0, 60_000), o.serviceArgs(),
                Servers.parse(o));
    }
}
