package dev.dispatcher.load.result;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.node.ObjectNode;

/**
 * RESULT {@code gatling-ingest}: HTTP ingest into the service jar, the single scenario's figures against the insert
 * ceiling of the same run. After {@code ratio_to_ceiling} come each scenario's {@code <scenario>_req_per_s}, {@code
 * _msgs_per_s}, {@code _p99_ms}, {@code _service_cpu_cores}, {@code _loadgen_cpu_cores} and {@code _pg_cpu_cores},
 * then the health flood's fields when it ran.
 *
 * @param reqPerS the headline scenario's requests a second
 * @param p99Ms its 99th percentile answer
 * @param failed answers other than expected, over every scenario
 * @param lost accepted ids never seen on Kafka
 * @param duplicates ids seen more than once
 * @param unanswered ids on the topic no answer reported as accepted
 * @param pgInsertCeilingPerS one-row INSERT transactions a second at the load's concurrency
 * @param ratioToCeiling {@code reqPerS} over the ceiling
 * @param scenarios each scenario's figures
 * @param healthFlood the health flood's figures, when it ran
 * @param concurrency single-message producers
 * @param batchConcurrency batch producers
 * @param batchSize messages per batch request
 * @param durationS seconds per scenario
 * @param warmupS seconds of warm-up
 * @param freshStart how fast the fresh service answered its first load
 * @param service how the service ran
 * @param pgFsync whether PostgreSQL committed durably
 * @param brokers Kafka brokers
 * @param ordering the relay's ordering
 * @param keys keys of the posted messages
 * @param payloadBytes each payload's size
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record GatlingIngest(double reqPerS, long p99Ms, long failed, long lost, long duplicates, long unanswered,
        double pgInsertCeilingPerS, double ratioToCeiling, @JsonIgnore List<Scenario> scenarios,
        @JsonIgnore HealthFlood healthFlood, int concurrency, int batchConcurrency, int batchSize, long durationS,
        long warmupS, @JsonUnwrapped FreshStart freshStart, String service, boolean pgFsync, int brokers, String ordering, int keys, int payloadBytes)
        implements BenchResult {

    public static final String NAME = "gatling-ingest";

    @Override
    public String name() {
        return NAME;
    }

    /**
     * The first load after the launch of the service's JVM ({@code dev.dispatcher.load.bench.RampUp}).
     *
     * @param startupS seconds from the launch until {@code /actuator/health} answered {@code UP}
     * @param startupCpuS CPU seconds the service's process used until then
     * @param firstAnswerS the start of the first second with an answer, from the launch (the load generator starts
     *     after the service is healthy)
     * @param timeTo80pctS seconds from the launch until the answers of one second first reached 0.8 of the steady
     *     rate
     * @param freshSteadyReqPerS the steady rate: the mean of the seconds in that load's last half
     * @param serviceJvmOptions the service's JVM options (an AOT cache, when it ran with one)
     */
    public record FreshStart(double startupS, double startupCpuS, int firstAnswerS, @JsonProperty("time_to_80pct_s") int timeTo80pctS,
            double freshSteadyReqPerS, String serviceJvmOptions) {
    }

    /** One scenario's figures; {@code name} prefixes its fields. */
    public record Scenario(String name, double reqPerS, double msgsPerS, long p99Ms, double serviceCpuCores,
            double loadgenCpuCores, double pgCpuCores) {
    }

    /**
     * The health flood: ingest beside {@code healthClients} callers of {@code /actuator/health}.
     *
     * @param healthClients the health callers
     * @param healthAddresses the client addresses they call from
     * @param healthFloodRatio ingest's request rate over the single scenario's
     * @param healthFloodFailed ingest answers other than 202
     * @param healthFlood503 of which 503
     * @param healthCallsPerS health calls answered a second
     */
    public record HealthFlood(int healthClients, int healthAddresses, double healthFloodRatio, long healthFloodFailed,
            @JsonProperty("health_flood_503") long healthFlood503, double healthCallsPerS) {
    }

    @Override
    public ObjectNode json() {
        Map<String, Object> perScenario = new LinkedHashMap<>();
        for (Scenario s : scenarios) {
            perScenario.put(s.name() + "_req_per_s", s.reqPerS());
            perScenario.put(s.name() + "_msgs_per_s", s.msgsPerS());
            perScenario.put(s.name() + "_p99_ms", s.p99Ms());
            perScenario.put(s.name() + "_service_cpu_cores", s.serviceCpuCores());
            perScenario.put(s.name() + "_loadgen_cpu_cores", s.loadgenCpuCores());
            perScenario.put(s.name() + "_pg_cpu_cores", s.pgCpuCores());
        }
        if (healthFlood != null) {
            ResultJson.MAPPER.<ObjectNode>valueToTree(healthFlood).properties()
                    .forEach(field -> perScenario.put(field.getKey(), field.getValue()));
        }
        return ResultJson.insertAfter(ResultJson.fields(this), "ratio_to_ceiling", perScenario);
    }
}
