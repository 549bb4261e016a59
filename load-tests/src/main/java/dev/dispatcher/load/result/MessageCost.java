package dev.dispatcher.load.result;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What one message cost during a measured drain: the CPU time of each process over the messages drained, the WAL
 * written and the statements run; a figure that could not be read is absent (null).
 *
 * @param pgCpuUsPerMsg CPU microseconds of the PostgreSQL cluster (postmaster and every child, reaped ones too)
 * @param serviceCpuUsPerMsg CPU microseconds of the service's JVM
 * @param brokerCpuUsPerMsg CPU microseconds of the Kafka broker's process (absent for an in-process broker); it also
 *     served the harness's counting consumer
 * @param walBytesPerMsg WAL bytes ({@code pg_current_wal_lsn()} difference)
 * @param statementsPerMsg statements run on the server ({@code pg_stat_statements} calls difference)
 * @param claimsPerMsg claim statements ({@code ... SKIP LOCKED}): leased batches, each published as one hand-off
 *     to the producer
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MessageCost(Double pgCpuUsPerMsg, Double serviceCpuUsPerMsg, Double brokerCpuUsPerMsg,
        Double walBytesPerMsg, Double statementsPerMsg, Double claimsPerMsg) {

    /** Not measured. */
    public static final MessageCost NONE = new MessageCost(null, null, null, null, null, null);
}
