package dev.dispatcher.load.mode;

import dev.dispatcher.app.config.InboxProperties;

/**
 * {@code inbox}: an inbox consumer of the in-process service drains N records through the webhook handler or an
 * in-process SQL handler, against its receiver's ceiling in the same run.
 *
 * @param n {@code --n} (default {@value #DEFAULT_N}, {@value #QUICK_N} with {@code --quick})
 * @param payloadBytes {@code --payload-bytes}
 * @param handler {@code --handler webhook|sql} (default webhook)
 * @param concurrency {@code --concurrency}: the consumer's (default the service's, {@value
 *     InboxProperties.Consumer#DEFAULT_CONCURRENCY})
 * @param receiverDelayMs {@code --receiver-delay-ms}: how long the webhook receiver takes per call (default {@value
 *     #DEFAULT_RECEIVER_DELAY_MS})
 * @param failEvery {@code --fail-every}: the receiver answers 503 once for every this-many-th id (default 0: never)
 * @param ordering {@code --ordering} (default none, as a consumer's)
 * @param warmup {@code --warmup}: records of one untimed warm-up drain (default {@value #DEFAULT_WARMUP}, none with
 *     {@code --quick})
 * @param poisonKey {@code --poison-key}: one record whose key starts with NUL goes to partition 0 first
 * @param failingKey {@code --failing-key}: the handler fails every record of {@code key-0}; the run drains twice
 * @param servers the servers
 */
public record Inbox(int n, int payloadBytes, Handler handler, int concurrency, int receiverDelayMs, int failEvery,
        Ordering ordering, int warmup, boolean poisonKey, boolean failingKey, Servers servers) implements BenchMode {

    public static final String NAME = "inbox";
    public static final int DEFAULT_N = 20_000;
    public static final int QUICK_N = 3_000;
    public static final int DEFAULT_WARMUP = 10_000;
    public static final int DEFAULT_RECEIVER_DELAY_MS = 2;
    /** Keys of the produced records, {@code key-0} to {@code key-63}. */
    public static final int KEYS = 64;
    /** The ceiling runs at most this many calls or transactions. */
    public static final int CEILING_MAX_N = 20_000;

    /** The handler under test. */
    public enum Handler {
        /** The built-in webhook handler, POSTing to the harness's receiver. */
        WEBHOOK("webhook"),
        /** An in-process handler inserting one row in the message's transaction. */
        SQL("sql");

        private final String text;

        Handler(String text) {
            this.text = text;
        }

        /** The option value and the RESULT's {@code handler}. */
        public String text() {
            return text;
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    static Inbox parse(Options o) {
        boolean quick = o.quick();
        String handler = o.text("handler", Handler.WEBHOOK.text);
        if (!handler.equals(Handler.WEBHOOK.text) && !handler.equals(Handler.SQL.text)) {
            throw new IllegalArgumentException("--handler must be webhook or sql, but was '" + handler + "'");
        }
        return new Inbox(o.integer("n", quick ? QUICK_N : DEFAULT_N, 1, Backlog.MAX_N),
                o.integer("payload-bytes", Backlog.DEFAULT_PAYLOAD_BYTES, 8, 1 << 20),
                handler.equals(Handler.SQL.text) ? Handler.SQL : Handler.WEBHOOK,
                o.integer("concurrency", InboxProperties.Consumer.DEFAULT_CONCURRENCY, 1, 1024),
                o.integer("receiver-delay-ms", DEFAULT_RECEIVER_DELAY_MS, 0, 60_000),
                o.integer("fail-every", 0, 0, Integer.MAX_VALUE), Ordering.parse(o, Ordering.NONE),
                o.integer("warmup", quick ? 0 : DEFAULT_WARMUP, 0, Backlog.MAX_N), o.flag("poison-key", false),
                o.flag("failing-key", false), Servers.parse(o));
    }
}
