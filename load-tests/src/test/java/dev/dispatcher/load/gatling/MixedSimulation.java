package dev.dispatcher.load.gatling;

import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.util.List;

/**
 * Ingest plus operator reads: producers post as in {@link IngestSimulation} while operators list messages and read
 * stats with their own token. {@code -Dmixed.rate} (ingest requests/s, default 1500), {@code -Dmixed.duration}.
 */
public class MixedSimulation extends Simulation {

    private final GatlingTarget target = GatlingTarget.start();
    private final int rate = Integer.getInteger("mixed.rate", 1500);
    private final int duration = Integer.getInteger("mixed.duration", 30);

    private final HttpProtocolBuilder producers = http.baseUrl(target.baseUrl)
            .contentTypeHeader("application/json")
            .authorizationHeader("Bearer " + target.producerToken)
            .shareConnections();

    private final HttpProtocolBuilder operators = http.baseUrl(target.baseUrl)
            .authorizationHeader("Bearer " + target.operatorToken)
            .shareConnections();

    private final ScenarioBuilder ingest = scenario("ingest")
            .exec(IngestSimulation.ChainBuilderFactory.single(target));

    private final ScenarioBuilder reads = scenario("operator reads")
            .exec(http("GET /v1/messages").get("/v1/messages?topic=" + IngestSimulation.TOPIC + "&limit=20")
                    .check(status().is(200)))
            .exec(http("GET /v1/stats").get("/v1/stats").check(status().is(200)));

    {
        setUp(
                ingest.injectOpen(constantUsersPerSec(rate).during(duration)).protocols(producers),
                reads.injectOpen(constantUsersPerSec(Math.max(1, rate / 20)).during(duration)).protocols(operators))
                .assertions(
                        global().responseTime().percentile(99.0).lte(100),
                        global().failedRequests().percent().lte(0.0));
    }

    @Override
    public void after() {
        target.verify(List.of(IngestSimulation.TOPIC));
        target.stop();
    }
}
