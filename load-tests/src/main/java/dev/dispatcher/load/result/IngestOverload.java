package dev.dispatcher.load.result;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.node.ObjectNode;

/**
 * RESULT {@code ingest-overload}: how the service jar answered a flood of large posts while its database was frozen.
 * After {@code unanswered} come {@code status_<code>} (answers by HTTP status) and {@code problem_<type>} (by RFC
 * 9457 problem type, {@code -} for none), one field each.
 *
 * @param common the fields every relay RESULT has
 * @param requests requests posted at once
 * @param answered requests answered
 * @param unanswered requests never answered
 * @param statuses answers by HTTP status
 * @param problems answers by problem type
 * @param maxAnswerMs the slowest answer
 * @param p99AnswerMs the 99th percentile answer
 * @param recoveredMs from the thaw until a post was accepted again (-1: never)
 * @param oomLines {@code OutOfMemoryError} lines in the service's log
 * @param serviceAlive whether the service still ran
 * @param serviceJvmOptions its JVM options
 */
public record IngestOverload(@JsonUnwrapped Common common, int requests, long answered, long unanswered,
        @JsonIgnore Map<Integer, Long> statuses, @JsonIgnore Map<String, Long> problems, long maxAnswerMs,
        long p99AnswerMs, long recoveredMs, long oomLines, boolean serviceAlive, String serviceJvmOptions)
        implements BenchResult {

    public static final String NAME = "ingest-overload";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ObjectNode json() {
        Map<String, Long> answers = new LinkedHashMap<>();
        statuses.forEach((status, count) -> answers.put("status_" + status, count));
        problems.forEach((type, count) -> answers.put("problem_" + type.replace('-', '_'), count));
        return ResultJson.insertAfter(ResultJson.fields(this), "unanswered", answers);
    }
}
