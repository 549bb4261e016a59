package dev.dispatcher.load.result;

import tools.jackson.databind.node.ObjectNode;

/**
 * What a benchmark reports: one record per RESULT name, whose fields docs/benchmarks.md publishes (scripts parse them). {@link
 * #line()} renders the {@code RESULT {json}} line every benchmark prints last: {@code name} first, then the record's
 * components in declaration order, in snake case, absent optional ones left out.
 */
public sealed interface BenchResult permits RelayDrain, RelayLatency, RelaySweep, InboxDrain, IngestOverload,
        RelayLargePayload, GatlingIngest, RelaySustained, RelayNewTopic, RelayImage, IngestHostile {

    /** The RESULT's {@code name}. */
    String name();

    /** The JSON object, {@code name} first. */
    default ObjectNode json() {
        return ResultJson.fields(this);
    }

    /** {@code RESULT {json}}, the last line a benchmark prints. */
    default String line() {
        return "RESULT " + ResultJson.write(json());
    }
}
