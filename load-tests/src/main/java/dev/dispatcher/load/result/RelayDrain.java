package dev.dispatcher.load.result;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;
import java.util.Map;

/**
 * RESULT {@code relay-drain}: N rows drained, the rate against the fixed PostgreSQL-only reference ceiling of the same
 * run, lost and duplicate rows counted on Kafka. Three shapes share it: the in-process drain ({@link #inProcess}), the
 * service jar's ({@link #serviceJar}) and a scale curve ({@link #curve}); a field a shape does not have is absent.
 *
 * @param common the fields every relay RESULT has
 * @param n rows timed
 * @param instances relay instances (services) that drained them
 * @param msgsPerS rows a second confirmed on Kafka
 * @param endToEndMsgsPerS service jar: rows a second from before the seeding until the consumer saw all
 * @param baselineMsgsPerS the naive relay's rate in the same run (0: not run)
 * @param baselineN in-process: rows the naive relay drained
 * @param pgCeilingMsgsPerS the reference ceiling (the higher of two runs where {@code pgCeilingRuns} is given)
 * @param pgCeilingRuns both reference runs, before and after the drain
 * @param ratioToBaseline in-process: {@code msgsPerS} over the baseline's
 * @param ratioToCeiling {@code msgsPerS} over the ceiling
 * @param serviceCompilingShare service jar: its compilation time over the measured drain's wall time
 * @param curve scale: each step's instances and rate, {@code "1:41343 2:38430"}
 * @param appliedDeliverSums scale: each step's Applied Deliver transitions summed over the instances (must be N)
 * @param lost rows never seen on Kafka, over every drain of the run
 * @param duplicates rows seen more than once, over every drain of the run
 * @param isolation the isolation drains' figures, when they ran
 * @param freshStart service jar: its first drain from the launch, when it ran ({@code time_to_80pct_s})
 * @param settings in-process: the relay's settings
 * @param serviceJar blackbox-scale: true
 * @param sources blackbox-sources: each source alone, both, the fault and the per-message costs
 * @param formats blackbox-formats: each record format's figures, by {@code dispatcher.relay.format}
 * @param freshCurve blackbox-scale with {@code --fresh-n}: fresh service jars started together on a standing backlog
 * @param pooler blackbox with {@code --pooler}: the same drain by a service behind PgBouncer in transaction mode
 * @param orderings blackbox with {@code --compare-ordering}: {@code per-key} against {@code per-key-across-topics}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RelayDrain(@JsonUnwrapped Common common, int n, int instances, double msgsPerS,
        Double endToEndMsgsPerS, double baselineMsgsPerS, Integer baselineN, double pgCeilingMsgsPerS,
        String pgCeilingRuns, Double ratioToBaseline, double ratioToCeiling, Double serviceCompilingShare,
        String curve, String appliedDeliverSums, long lost, long duplicates, @JsonUnwrapped Isolation isolation,
        @JsonUnwrapped FreshStart freshStart, @JsonUnwrapped Settings settings, Boolean serviceJar,
        @JsonUnwrapped Sources sources, Map<String, FormatRate> formats, @JsonUnwrapped FreshCurve freshCurve,
        @JsonUnwrapped Pooler pooler, @JsonUnwrapped Orderings orderings) implements BenchResult {

    public static final String NAME = "relay-drain";

    @Override
    public String name() {
        return NAME;
    }

    /**
     * The isolation drains' figures; each pair present when its drain ran.
     *
     * @param poisonMsgsPerS the rate with a missing topic's row first among the rows
     * @param ratioToClean over the clean drain's
     * @param failingKeyMsgsPerS the other 63 keys' rate beside a key that fails every attempt
     * @param failingKeyCleanMsgsPerS the same 63 keys' rows drained alone
     * @param failingKeyRatioToClean the one over the other
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Isolation(Double poisonMsgsPerS, Double ratioToClean, Double failingKeyMsgsPerS,
            Double failingKeyCleanMsgsPerS, Double failingKeyRatioToClean) {

        /** No isolation drain ran. */
        public static final Isolation NONE = new Isolation(null, null, null, null, null);
    }

    /**
     * One record format's drains in a {@code blackbox-formats} run.
     *
     * @param msgsPerS the median of its rounds' rates
     * @param ratioToPlain the median of its rounds' rates over {@code plain}'s in the same round
     * @param serviceCpuUsPerMsg the service JVM's CPU time over its timed drains, per message
     * @param rounds each round's rate
     */
    public record FormatRate(double msgsPerS, double ratioToPlain, double serviceCpuUsPerMsg, List<Double> rounds) {
    }

    /**
     * Fresh service jars started together on one standing backlog, one step per instance count, each as {@code
     * "<instances>:<figure>"}, space-separated.
     *
     * @param freshN rows waiting when each step's JVMs were launched
     * @param freshCurve each step's rows a second, first claim to last delivery
     * @param freshSteadyCurve each step's steady rate ({@code RampUp})
     * @param freshTimeTo80pctCurve each step's {@code time_to_80pct_s}, from the launch
     * @param freshStartupCurve each step's seconds from the launch until every instance answered healthy
     * @param freshRatioToOne the largest step's steady rate over the one instance's
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record FreshCurve(Integer freshN, String freshCurve, String freshSteadyCurve,
            @JsonProperty("fresh_time_to_80pct_curve") String freshTimeTo80pctCurve, String freshStartupCurve,
            Double freshRatioToOne) {

        /** No fresh steps ran. */
        public static final FreshCurve NONE = new FreshCurve(null, null, null, null, null, null);
    }

    /** This result with the fresh steps' figures, their lost and duplicate rows added to the run's. */
    public RelayDrain withFreshCurve(FreshCurve fresh, long freshLost, long freshDuplicates) {
        return new RelayDrain(common, n, instances, msgsPerS, endToEndMsgsPerS, baselineMsgsPerS, baselineN,
                pgCeilingMsgsPerS, pgCeilingRuns, ratioToBaseline, ratioToCeiling, serviceCompilingShare, curve,
                appliedDeliverSums, lost + freshLost, duplicates + freshDuplicates, isolation, freshStart, settings,
                serviceJar, sources, formats, fresh, pooler, orderings);
    }

    /**
     * The drain of a {@code blackbox --pooler} run by a second service jar behind PgBouncer in transaction pooling
     * mode ({@code dispatcher.database.pooler=transaction}, {@code LISTEN} over a direct URL), warmed up as the direct
     * one, on the same server in the same run.
     *
     * @param poolerMsgsPerS its rate, first claim to last delivery by the rows' own times
     * @param poolerRatioToDirect over the direct service's {@code msgs_per_s}
     * @param poolerVersion {@code pgbouncer --version}'s first line
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Pooler(Double poolerMsgsPerS, Double poolerRatioToDirect, String poolerVersion) {

        /** No drain through a pooler ran. */
        public static final Pooler NONE = new Pooler(null, null, null);
    }

    /** This result with the drain through a pooler, its lost and duplicate rows added to the run's. */
    public RelayDrain withPooler(Pooler through, long poolerLost, long poolerDuplicates) {
        return new RelayDrain(common, n, instances, msgsPerS, endToEndMsgsPerS, baselineMsgsPerS, baselineN,
                pgCeilingMsgsPerS, pgCeilingRuns, ratioToBaseline, ratioToCeiling, serviceCompilingShare, curve,
                appliedDeliverSums, lost + poolerLost, duplicates + poolerDuplicates, isolation, freshStart, settings,
                serviceJar, sources, formats, freshCurve, through, orderings);
    }

    /**
     * The pairs of a {@code blackbox --compare-ordering} run: N rows drained by the first service ({@code per-key},
     * the unit of order {@code (topic, key)}) and N by a second service jar under {@code per-key-across-topics} (the
     * key alone), each on a schema of its own, in turns, both on the same servers in the same run; rates by the rows'
     * own times.
     *
     * @param perKeyPairsMsgsPerS the median of the per-key drains of the pairs
     * @param acrossTopicsMsgsPerS the median of the per-key-across-topics drains
     * @param ratioToAcrossTopics the median of the pairs' ratios, per-key over per-key-across-topics
     * @param perKeyPairRates each pair's per-key rate
     * @param acrossTopicsPairRates each pair's per-key-across-topics rate
     * @param pairRatiosToAcrossTopics each pair's ratio
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Orderings(Double perKeyPairsMsgsPerS, Double acrossTopicsMsgsPerS, Double ratioToAcrossTopics,
            List<Double> perKeyPairRates, List<Double> acrossTopicsPairRates,
            List<Double> pairRatiosToAcrossTopics) {

        /** No comparison ran. */
        public static final Orderings NONE = new Orderings(null, null, null, null, null, null);
    }

    /** This result with the ordering comparison's pairs, their lost and duplicate rows added to the run's. */
    public RelayDrain withOrderings(Orderings compared, long comparedLost, long comparedDuplicates) {
        return new RelayDrain(common, n, instances, msgsPerS, endToEndMsgsPerS, baselineMsgsPerS, baselineN,
                pgCeilingMsgsPerS, pgCeilingRuns, ratioToBaseline, ratioToCeiling, serviceCompilingShare, curve,
                appliedDeliverSums, lost + comparedLost, duplicates + comparedDuplicates, isolation, freshStart,
                settings, serviceJar, sources, formats, freshCurve, pooler, compared);
    }

    /** The in-process relay's settings. */
    public record Settings(int batchSize, int publishConcurrency, int maxInFlightBatches) {
    }

    /** The in-process drain of {@code drain} mode. */
    public static RelayDrain inProcess(Common common, int n, double msgsPerS, double baselineMsgsPerS, int baselineN,
            double pgCeilingMsgsPerS, String pgCeilingRuns, double ratioToBaseline, double ratioToCeiling, long lost,
            long duplicates, Isolation isolation, Settings settings) {
        return new RelayDrain(common, n, 1, msgsPerS, null, baselineMsgsPerS, baselineN, pgCeilingMsgsPerS,
                pgCeilingRuns, ratioToBaseline, ratioToCeiling, null, null, null, lost, duplicates, isolation,
                FreshStart.NONE, settings, null, Sources.NONE, null, FreshCurve.NONE, Pooler.NONE, Orderings.NONE);
    }

    /** The service jar's drain of {@code blackbox} mode (no baseline: 0), with its fresh start when it ran. */
    public static RelayDrain serviceJar(Common common, int n, double msgsPerS, double endToEndMsgsPerS,
            double pgCeilingMsgsPerS, String pgCeilingRuns, double ratioToCeiling, double serviceCompilingShare,
            long lost, long duplicates, Isolation isolation, FreshStart freshStart) {
        return new RelayDrain(common, n, 1, msgsPerS, endToEndMsgsPerS, 0, null, pgCeilingMsgsPerS, pgCeilingRuns,
                null, ratioToCeiling, serviceCompilingShare, null, null, lost, duplicates, isolation, freshStart, null,
                null, Sources.NONE, null, FreshCurve.NONE, Pooler.NONE, Orderings.NONE);
    }

    /** A {@code blackbox-formats} run: {@code msgsPerS} is {@code plain}'s, {@code formats} every format's. */
    public static RelayDrain formats(Common common, int n, double msgsPerS, double pgCeilingMsgsPerS,
            String pgCeilingRuns, double ratioToCeiling, long lost, long duplicates, Map<String, FormatRate> formats) {
        return new RelayDrain(common, n, 1, msgsPerS, null, 0, null, pgCeilingMsgsPerS, pgCeilingRuns, null,
                ratioToCeiling, null, null, null, lost, duplicates, Isolation.NONE, FreshStart.NONE, null, null,
                Sources.NONE, formats, FreshCurve.NONE, Pooler.NONE, Orderings.NONE);
    }

    /** A scale curve's largest step, with the whole curve; {@code serviceJar} true for blackbox-scale, else null. */
    public static RelayDrain curve(Common common, int n, int instances, double msgsPerS, double pgCeilingMsgsPerS,
            double ratioToCeiling, String curve, String appliedDeliverSums, long lost, long duplicates,
            Boolean serviceJar) {
        return new RelayDrain(common, n, instances, msgsPerS, null, 0, null, pgCeilingMsgsPerS, null, null,
                ratioToCeiling, null, curve, appliedDeliverSums, lost, duplicates, Isolation.NONE, FreshStart.NONE,
                null, serviceJar, Sources.NONE, null, FreshCurve.NONE, Pooler.NONE, Orderings.NONE);
    }

    /**
     * One service jar on two sources ({@code blackbox-sources}): {@code msgsPerS} and {@code ratioToCeiling} are
     * source A's drain alone against the first server's ceiling, as in {@code blackbox}; {@code sources} the rest.
     */
    public static RelayDrain twoSources(Common common, int n, double msgsPerS, double pgCeilingMsgsPerS,
            double ratioToCeiling, long lost, long duplicates, Sources sources) {
        return new RelayDrain(common, n, 1, msgsPerS, null, 0, null, pgCeilingMsgsPerS, null, null, ratioToCeiling,
                null, null, null, lost, duplicates, Isolation.NONE, FreshStart.NONE, null, true, sources, null,
                FreshCurve.NONE, Pooler.NONE, Orderings.NONE);
    }
}
