package dev.dispatcher.load.gatling;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.responseTimeInMillis;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Closed-model ingest load for {@link IngestBenchmark}: {@code concurrency} producers, each sending its next request
 * as soon as the previous one is answered, for {@code duration}, authenticating with an API token. The shape comes
 * from {@link IngestLoad#config}: single messages with fresh ids on {@code POST /v1/messages}, batches of
 * {@value IngestLoad#BATCH_SIZE} on {@code POST /v1/messages/batch}, or singles repeating ids already accepted
 * (each must answer 200); in {@code health-flood}, fresh singles while {@code healthClients} more clients, without
 * credentials, call {@code /actuator/health} as fast as it answers. Every answer is recorded in {@link
 * IngestLoad#figures}; Gatling's own checks only save the status, so the harness decides what failed.
 */
public class IngestSimulation extends Simulation {

    private final IngestLoad.Config config = IngestLoad.config;
    private final IngestLoad.Figures figures = IngestLoad.figures;
    private final AtomicInteger replayed = new AtomicInteger();

    private final HttpProtocolBuilder protocol = http.baseUrl(config.baseUrl())
            .contentTypeHeader("application/json")
            .acceptHeader("application/json")
            .authorizationHeader("Bearer " + config.producerToken())
            .shareConnections();

    private ChainBuilder request() {
        IngestLoad.Scenario shape = config.scenario();
        String topic = config.topic();
        ChainBuilder pick = exec(session -> session.set("ids", switch (shape) {
            case SINGLE, HEALTH_FLOOD -> List.of(UUID.randomUUID().toString());
            case BATCH -> fresh(IngestLoad.BATCH_SIZE);
            case REPLAY -> List.of(config.replayIds().get(
                    Math.floorMod(replayed.getAndIncrement(), config.replayIds().size())));
            case WARMUP -> fresh(replayed.getAndIncrement() % 20 == 19 ? IngestLoad.WARMUP_BATCH_SIZE : 1);
        }));
        return pick.exec(http(shape.name().toLowerCase())
                        .post(session -> session.getList("ids").size() > 1 || shape == IngestLoad.Scenario.BATCH
                                ? "/v1/messages/batch" : "/v1/messages")
                        .body(StringBody(session -> {
                            List<String> ids = session.getList("ids");
                            return ids.size() > 1 || shape == IngestLoad.Scenario.BATCH
                                    ? ids.stream().map(id -> IngestLoad.message(id, topic))
                                            .collect(Collectors.joining(",", "[", "]"))
                                    : IngestLoad.message(ids.get(0), topic);
                        }))
                        .check(status().saveAs("status"), responseTimeInMillis().saveAs("rt")))
                .exec(session -> {
                    figures.record(shape, session.contains("status") ? session.getInt("status") : null,
                            session.contains("rt") ? session.getLong("rt") : null, session.getList("ids"));
                    return session.remove("status").remove("rt");
                });
    }

    private static List<String> fresh(int n) {
        return Stream.generate(() -> UUID.randomUUID().toString()).limit(n).toList();
    }

    private final ScenarioBuilder load = scenario(config.scenario().name().toLowerCase())
            // exitASAP false: a request in flight when the time is up is answered and recorded (with the default,
            // Gatling drops the user mid-request and the ids it sent are never counted as accepted)
            .during(config.duration(), false).on(request());

    /**
     * The health callers' protocol: no credentials, as a load balancer's probe sends none; each caller binds one of
     * {@code healthAddresses} loopback addresses (round robin per caller), so the service sees that many clients.
     */
    private final HttpProtocolBuilder probes = config.healthAddresses() <= 1
            ? http.baseUrl(config.baseUrl()).shareConnections()
            : http.baseUrl(config.baseUrl()).localAddresses(IntStream.rangeClosed(1, config.healthAddresses())
                    .mapToObj(i -> "127.0.1." + i).toList());

    /** {@code healthClients} callers of the public health endpoint, each calling again as soon as it is answered. */
    private final ScenarioBuilder health = scenario("health")
            .during(config.duration(), false).on(exec(http("health").get("/actuator/health")
                            .check(status().saveAs("status")))
                    .exec(session -> {
                        figures.recordHealth(session.contains("status") ? session.getInt("status") : null);
                        return session.remove("status");
                    }));

    {
        if (config.scenario() == IngestLoad.Scenario.HEALTH_FLOOD && config.healthClients() > 0) {
            setUp(load.injectOpen(atOnceUsers(config.concurrency())).protocols(protocol),
                    health.injectOpen(atOnceUsers(config.healthClients())).protocols(probes));
        } else {
            setUp(load.injectOpen(atOnceUsers(config.concurrency()))).protocols(protocol);
        }
    }
}
