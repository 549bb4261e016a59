package dev.dispatcher.load.result;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;

/**
 * {@code blackbox-sources}: one service draining two sources, {@code default} on the first PostgreSQL (A) and a named
 * one on the second (B); absent from other runs. Rates count each source's rows by their own times (first claim to
 * last delivery).
 *
 * @param sourceAMsgsPerS A drained alone (B idle)
 * @param sourceBMsgsPerS B drained alone (A idle)
 * @param bothAMsgsPerS A while both drained at once
 * @param bothBMsgsPerS B while both drained at once
 * @param sumMsgsPerS both at once: 2N over the span from the first claim on either to the last delivery on either
 * @param ratioSumToBestAlone {@code sumMsgsPerS} over the higher of the two alone
 * @param faultAMsgsPerS A's rows delivered while B's link was cut, over that span (cut to restore, or to A's last
 *     delivery when earlier)
 * @param faultRatioToAlone {@code faultAMsgsPerS} over {@code sourceAMsgsPerS} (issue 40's target: at least 0.8)
 * @param faultBRejoinS seconds from restoring B's link to B's last delivery
 * @param pg2CeilingMsgsPerS the reference ceiling of the second PostgreSQL, in the same run
 * @param cost the per-message costs measured during the drain of A alone
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Sources(@JsonProperty("source_a_msgs_per_s") Double sourceAMsgsPerS,
        @JsonProperty("source_b_msgs_per_s") Double sourceBMsgsPerS,
        @JsonProperty("both_a_msgs_per_s") Double bothAMsgsPerS, @JsonProperty("both_b_msgs_per_s") Double bothBMsgsPerS,
        Double sumMsgsPerS, Double ratioSumToBestAlone, @JsonProperty("fault_a_msgs_per_s") Double faultAMsgsPerS,
        Double faultRatioToAlone, @JsonProperty("fault_b_rejoin_s") Double faultBRejoinS, Double pg2CeilingMsgsPerS,
        @JsonUnwrapped MessageCost cost) {

    /** Not a two-source run. */
    public static final Sources NONE = new Sources(null, null, null, null, null, null, null, null, null, null,
            MessageCost.NONE);
}
