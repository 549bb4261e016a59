package dev.dispatcher.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MessageTracingTest {

    private static final String SAMPLED = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    private static final String UNSAMPLED = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";

    private final InMemorySpanExporter exported = InMemorySpanExporter.create();

    /** The service's tracing: the OpenTelemetry bridge, a parent-based sampler with root probability {@code p}. */
    private MessageTracing tracing(double p) {
        SdkTracerProvider provider = SdkTracerProvider.builder()
                .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(p)))
                .addSpanProcessor(SimpleSpanProcessor.create(exported))
                .build();
        io.opentelemetry.api.trace.Tracer otel = provider.get("test");
        OtelTracer tracer = new OtelTracer(otel, new OtelCurrentTraceContext(), event -> { });
        OtelPropagator propagator = new OtelPropagator(
                ContextPropagators.create(W3CTraceContextPropagator.getInstance()), otel);
        return MessageTracing.of(tracer, propagator, p);
    }

    @Test
    void aSpanThatTheSamplerWouldNotRecordIsNotStarted() {
        MessageTracing tracing = tracing(0.0);

        assertThat(tracing.mayRecord(Map.of())).as("no context, roots never sampled").isFalse();
        assertThat(tracing.mayRecord(Map.of("traceparent", UNSAMPLED))).as("an unsampled parent").isFalse();
        assertThat(tracing.mayRecord(Map.of("traceparent", SAMPLED))).as("a sampled parent").isTrue();
        assertThat(tracing.mayRecord(Map.of("traceparent", "garbage"))).as("malformed: the propagator decides")
                .isTrue();
    }

    @Test
    void whatMayRecordRulesOutIsWhatTheSamplerDropsAndWhatItAllowsIsExported() {
        MessageTracing tracing = tracing(0.0);

        for (String parent : new String[] {UNSAMPLED, SAMPLED}) {
            Span span = tracing.start("publish", Span.Kind.PRODUCER, Map.of("traceparent", parent));
            span.end();
        }
        Span root = tracing.start("publish", Span.Kind.PRODUCER, Map.of());
        root.end();

        assertThat(exported.getFinishedSpanItems()).as("only the span under the sampled parent is recorded")
                .hasSize(1)
                .allSatisfy(s -> assertThat(s.getParentSpanId()).isEqualTo("b7ad6b7169203331"));
    }

    @Test
    void rootsThatMayBeSampledAreAlwaysTraced() {
        assertThat(tracing(0.5).mayRecord(Map.of())).isTrue();
        assertThat(tracing(0.5).mayRecord(Map.of("traceparent", UNSAMPLED))).isTrue();
        assertThat(MessageTracing.off().mayRecord(Map.of("traceparent", SAMPLED))).as("tracing off").isFalse();
    }

    @Test
    void onlyAWellFormedTraceparentWithTheSampledFlagClearIsUnsampled() {
        assertThat(MessageTracing.isUnsampled(UNSAMPLED)).isTrue();
        assertThat(MessageTracing.isUnsampled(SAMPLED)).isFalse();
        assertThat(MessageTracing.isUnsampled(UNSAMPLED.replace("-00", "-02"))).as("other flags, not sampled").isTrue();
        assertThat(MessageTracing.isUnsampled(UNSAMPLED.replace("-00", "-03"))).isFalse();
        assertThat(MessageTracing.isUnsampled(UNSAMPLED.replace("-00", "-0g"))).isFalse();
        assertThat(MessageTracing.isUnsampled(UNSAMPLED + "-extra")).isFalse();
    }

    @Test
    void theTraceIdIsTakenFromAWellFormedTraceparentOnly() {
        assertThat(MessageTracing.traceId(SAMPLED)).isEqualTo("0af7651916cd43dd8448eb211c80319c");
        assertThat(MessageTracing.traceId(UNSAMPLED)).isEqualTo("0af7651916cd43dd8448eb211c80319c");
        assertThat(MessageTracing.traceId(null)).isNull();
        assertThat(MessageTracing.traceId(SAMPLED + "-extra")).isNull();
        assertThat(MessageTracing.traceId(SAMPLED.toUpperCase())).as("W3C: lower-case hex only").isNull();
        assertThat(MessageTracing.traceId(SAMPLED.replace('-', '_'))).isNull();
        assertThat(MessageTracing.traceId("00-" + "0".repeat(32) + "-b7ad6b7169203331-01")).as("invalid: all zeros")
                .isNull();
    }
}
