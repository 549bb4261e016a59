package dev.dispatcher.app.ingest;

import java.util.UUID;

/**
 * Why ingest refused a request, carried as an error signal; consumed with an exhaustive {@code switch}. The message
 * is the detail a caller reads: it names the field or the bound (a property) and says that nothing was written, or
 * (only {@link Overloaded} with {@link Overloaded.Reason#WRITE_TIMED_OUT}) that the write may have been applied.
 * Carries no stack trace: a refusal is an answer, not a fault.
 */
public abstract sealed class IngestProblem extends RuntimeException {

    private IngestProblem(String detail) {
        super(detail, null, false, false);
    }

    /** A field is missing, of the wrong type, or out of its limits. */
    public static final class Invalid extends IngestProblem {

        private final String field;

        public Invalid(String field, String detail) {
            super(detail);
            this.field = field;
        }

        /** The offending part: {@code topic}, {@code [2].headers.x-id}, or {@code $} for the whole body. */
        public String field() {
            return field;
        }
    }

    /** The body is not (well-formed, single-value) JSON. */
    public static final class Malformed extends IngestProblem {

        public Malformed(String detail) {
            super(detail);
        }
    }

    /** The body, a payload or a batch is larger than allowed. */
    public static final class TooLarge extends IngestProblem {

        private final String field;

        public TooLarge(String field, String detail) {
            super(detail);
            this.field = field;
        }

        public String field() {
            return field;
        }
    }

    /** A message's topic lies outside the caller's {@link TopicGrant}. */
    public static final class TopicForbidden extends IngestProblem {

        private final String field;
        private final String topic;

        public TopicForbidden(String field, String topic, String detail) {
            super(detail);
            this.field = field;
            this.topic = topic;
        }

        public String field() {
            return field;
        }

        public String topic() {
            return topic;
        }
    }

    /** The outbox backlog is at {@code dispatcher.ingest.max-backlog}. */
    public static final class BacklogFull extends IngestProblem {

        /** Long enough for the relay to drain a good part of a full backlog; short enough to resume soon. */
        public static final int RETRY_AFTER_SECONDS = 2;

        private final long backlog;

        public BacklogFull(long backlog, long max) {
            super("the outbox backlog (" + backlog + " live messages) is at its bound dispatcher.ingest.max-backlog ("
                    + max + "); retry later");
            this.backlog = backlog;
        }

        /** Live rows at the last check. */
        public long backlog() {
            return backlog;
        }
    }

    /** Ingest cannot take the request now; retry after {@link #RETRY_AFTER_SECONDS}. */
    public static final class Overloaded extends IngestProblem {

        /** Requests in flight finish within the ingest timeout. */
        public static final int RETRY_AFTER_SECONDS = 1;

        /** Which bound refused the request. */
        public enum Reason {
            /** {@code dispatcher.ingest.max-concurrent-requests}; the body was never read. */
            BUSY,
            /** {@code dispatcher.ingest.max-concurrent-requests-per-client}: its client holds its share; not read. */
            CLIENT_BUSY,
            /** {@code dispatcher.ingest.max-queued-bytes}: refused before its body was read, or as it arrived. */
            MEMORY_FULL,
            /** Its lane holds too many waiting messages. */
            QUEUE_FULL,
            /** It waited {@code dispatcher.ingest.timeout} for its lane; nothing was written. */
            WAITED_TOO_LONG,
            /** Its statement did not finish within {@code dispatcher.ingest.timeout}: it may have been applied. */
            WRITE_TIMED_OUT
        }

        private final Reason reason;
        private final long queuedBytes;

        public Overloaded(Reason reason, String detail) {
            this(reason, -1, detail);
        }

        public Overloaded(Reason reason, long queuedBytes, String detail) {
            super(detail);
            this.reason = reason;
            this.queuedBytes = queuedBytes;
        }

        public Reason reason() {
            return reason;
        }

        /** The bytes ingest held when it refused for memory ({@link Reason#MEMORY_FULL}); -1 otherwise. */
        public long queuedBytes() {
            return queuedBytes;
        }
    }

    /**
     * The body did not arrive whole within {@code dispatcher.ingest.body-timeout}; nothing was written, what had
     * arrived was released.
     */
    public static final class BodyTimeout extends IngestProblem {

        public BodyTimeout(String detail) {
            super(detail);
        }
    }

    /** A message's id was neither written nor found: retention deleted its row while the write ran. */
    public static final class RowRemoved extends IngestProblem {

        private final UUID id;

        public RowRemoved(UUID id, String detail) {
            super(detail);
            this.id = id;
        }

        public UUID id() {
            return id;
        }
    }
}
