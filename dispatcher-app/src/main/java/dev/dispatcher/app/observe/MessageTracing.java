package dev.dispatcher.app.observe;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.TracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

/**
 * Spans of single messages, on Micrometer Tracing (the OpenTelemetry bridge in the service): the publish span of
 * an outbox message and the handling span of an inbox message, each a child of the W3C {@code traceparent} the
 * message carries, and each handing its own {@code traceparent} on.
 *
 * <p>Why spans and not Observations here: an Observation also records a timer and a long-task timer per message
 * (Boot's meter handler takes every observation), which the publish path, at thousands of messages a second, does
 * not need; the HTTP spans (ingest requests) are Spring's Observations. With tracing off ({@link #off()}, or a
 * no-op tracer) nothing is started and messages keep the {@code traceparent} they were stored with.
 *
 * <p>A span that cannot be recorded is not started either ({@link #mayRecord}): when root spans are never sampled
 * ({@code management.tracing.sampling.probability} 0, Dispatcher's default) and the message's context is absent or
 * not sampled, the parent-based sampler would make a non-recording span, whose only effect is a new span id in the
 * {@code traceparent} handed on, an id no one records. Passing the message's own context on instead is the same
 * trace for every reader, and it spared the relay half of its publishing thread's CPU (a parse, a span and a
 * format per message). Thread-safe.
 */
public final class MessageTracing {

    /** The W3C trace context header, on Kafka records and HTTP requests alike. */
    public static final String TRACEPARENT = "traceparent";

    /**
     * Reactor {@code Context} key under which an inbox handler finds the {@code traceparent} of its handling span
     * (a {@code String}); absent when tracing is off.
     */
    public static final String HANDLING_TRACEPARENT = MessageTracing.class.getName() + ".handling-traceparent";

    private static final MessageTracing OFF = new MessageTracing(null, null, false);

    private final Tracer tracer;
    private final Propagator propagator;
    /** Whether a span without a sampled parent may be sampled (a root sampling probability above 0). */
    private final boolean rootsSampled;

    private MessageTracing(Tracer tracer, Propagator propagator, boolean rootsSampled) {
        this.tracer = tracer;
        this.propagator = propagator;
        this.rootsSampled = rootsSampled;
    }

    /**
     * Tracing on {@code tracer}, whose sampler is parent-based with root probability {@code rootProbability} (Boot's
     * {@code management.tracing.sampling.probability}); off when either is missing or a no-op.
     */
    public static MessageTracing of(Tracer tracer, Propagator propagator, double rootProbability) {
        if (tracer == null || propagator == null || tracer == Tracer.NOOP || propagator == Propagator.NOOP) {
            return OFF;
        }
        return new MessageTracing(tracer, propagator, rootProbability > 0);
    }

    /** Tracing off: no spans, headers pass unchanged. */
    public static MessageTracing off() {
        return OFF;
    }

    public boolean enabled() {
        return tracer != null;
    }

    /** Whether a span without a sampled parent may be sampled (a root probability above 0). */
    public boolean rootsSampled() {
        return rootsSampled;
    }

    /**
     * Whether {@code present} (a case-insensitive header lookup) finds any of the fields the propagator reads
     * ({@code traceparent}, {@code tracestate}, or B3's when so configured); false when tracing is off.
     */
    public boolean carriesContext(Predicate<String> present) {
        if (propagator == null) {
            return false;
        }
        for (String field : propagator.fields()) {
            if (present.test(field)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A new trace's {@code traceparent} with the sampled flag clear: what the parent-based sampler gives a request
     * that carries no context while roots are never sampled (random non-zero trace and span ids, flag 00).
     */
    public static String unsampledRoot() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long high = random.nextLong();
        long low;
        do {
            low = random.nextLong();
        } while (high == 0 && low == 0);
        long span;
        do {
            span = random.nextLong();
        } while (span == 0);
        HexFormat hex = HexFormat.of();
        return "00-" + hex.toHexDigits(high) + hex.toHexDigits(low) + "-" + hex.toHexDigits(span) + "-00";
    }

    /**
     * Whether a span started from {@code headers} could be recorded: tracing is on, and roots may be sampled or the
     * message carries a sampled W3C {@code traceparent} (or trace headers of another format, which this check does
     * not read). When it is false, callers pass {@code headers} on instead of starting a span.
     */
    public boolean mayRecord(Map<String, String> headers) {
        if (tracer == null) {
            return false;
        }
        if (rootsSampled) {
            return true;
        }
        String traceparent = headers.get(TRACEPARENT);
        if (traceparent != null) {
            return !isUnsampled(traceparent);
        }
        return carriesContext(headers::containsKey);
    }

    /**
     * Whether {@code traceparent} is a well-formed W3C value ({@code 00-<32 hex>-<16 hex>-<2 hex>}) whose sampled
     * flag is clear. A malformed value is not called unsampled: the propagator decides what it means.
     */
    static boolean isUnsampled(String traceparent) {
        if (traceparent.length() != 55 || traceparent.charAt(2) != '-' || traceparent.charAt(35) != '-'
                || traceparent.charAt(52) != '-') {
            return false;
        }
        int flags = Character.digit(traceparent.charAt(54), 16);
        return Character.digit(traceparent.charAt(53), 16) >= 0 && flags >= 0 && (flags & 1) == 0;
    }

    /**
     * The trace id of a well-formed W3C {@code traceparent} ({@code 00-<32 hex>-<16 hex>-<2 hex>}, the trace id not
     * all zeros): its 32 hexadecimal digits, lower-case as the header carries them; null for null or anything else.
     */
    public static String traceId(String traceparent) {
        if (traceparent == null || traceparent.length() != 55 || traceparent.charAt(2) != '-'
                || traceparent.charAt(35) != '-' || traceparent.charAt(52) != '-') {
            return null;
        }
        boolean nonZero = false;
        for (int i = 3; i < 35; i++) {
            char c = traceparent.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return null;
            }
            nonZero |= c != '0';
        }
        return nonZero ? traceparent.substring(3, 35) : null;
    }

    /**
     * Starts a span of {@code kind} whose parent is the {@code traceparent} in {@code headers}, or a new trace
     * when there is none (or it is malformed).
     *
     * @throws IllegalStateException when tracing is off
     */
    public Span start(String name, Span.Kind kind, Map<String, String> headers) {
        if (tracer == null) {
            throw new IllegalStateException("tracing is off");
        }
        return propagator.extract(headers, Map::get).name(name).kind(kind).start();
    }

    /** A copy of {@code headers} in which the trace context headers are {@code span}'s, replacing any stored. */
    public Map<String, String> withContextOf(Span span, Map<String, String> headers) {
        Map<String, String> copy = new LinkedHashMap<>(headers);
        propagator.inject(span.context(), copy, Map::put);
        return copy;
    }

    /**
     * The {@code traceparent} of the span a tracing handler started for {@code observation}, or {@code null} when
     * it is not traced (tracing off, or the observation is a no-op).
     */
    public static String traceparentOf(Observation.ContextView observation) {
        TracingObservationHandler.TracingContext tracing =
                observation.get(TracingObservationHandler.TracingContext.class);
        Span span = tracing == null ? null : tracing.getSpan();
        return span == null ? null : traceparent(span.context());
    }

    /** {@code context} as a W3C {@code traceparent} value: version 00, trace id, span id, sampled flag. */
    public static String traceparent(TraceContext context) {
        Boolean sampled = context.sampled();
        return "00-" + context.traceId() + "-" + context.spanId() + (Boolean.TRUE.equals(sampled) ? "-01" : "-00");
    }
}
