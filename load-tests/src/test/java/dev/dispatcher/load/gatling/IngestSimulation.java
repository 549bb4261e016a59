package dev.dispatcher.load.gatling;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.rampUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;
import static io.gatling.javaapi.core.CoreDsl.responseTimeInMillis;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Open-model ingest load on {@code POST /v1/messages} (90%) and {@code POST /v1/messages/batch} (10%, 10 items),
 * producers authenticating with an API token, realistic order payloads over 500 keys. Asserts p99 and failures;
 * afterwards the target waits for the relay to drain and checks every accepted message on Kafka.
 *
 * <p>Rate and duration: {@code -Dingest.rate} (requests/s, default 3000), {@code -Dingest.duration} (s, default 30).
 */
public class IngestSimulation extends Simulation {

    static final String TOPIC = "gatling.orders";
    private final GatlingTarget target = GatlingTarget.start();
    private final int rate = Integer.getInteger("ingest.rate", 3000);
    private final int duration = Integer.getInteger("ingest.duration", 30);

    static String message(String id) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        int order = r.nextInt(1_000_000);
        return """
                {"id":"%s","topic":"%s","key":"customer-%d","type":"OrderPlaced","correlationId":"corr-%d",\
                "payload":{"orderId":%d,"customer":"customer-%d","lines":[{"sku":"SKU-%d","qty":%d,"price":%d.95}],\
                "currency":"EUR","note":"%s"}}""".formatted(id, TOPIC, order % 500, order, order, order % 500,
                r.nextInt(10_000), 1 + r.nextInt(5), 5 + r.nextInt(200), "x".repeat(r.nextInt(64, 192)));
    }

    private final HttpProtocolBuilder protocol = http.baseUrl(target.baseUrl)
            .contentTypeHeader("application/json")
            .acceptHeader("application/json")
            .authorizationHeader("Bearer " + target.producerToken)
            .shareConnections();

    private final ScenarioBuilder ingest = scenario("ingest")
            .randomSwitch().on(
                    io.gatling.javaapi.core.CoreDsl.percent(90.0).then(ChainBuilderFactory.single(target)),
                    io.gatling.javaapi.core.CoreDsl.percent(10.0).then(ChainBuilderFactory.batch(target)));

    {
        setUp(ingest.injectOpen(
                        rampUsersPerSec(Math.max(1, rate / 10)).to(rate).during(5),
                        constantUsersPerSec(rate).during(duration)))
                .protocols(protocol)
                .assertions(
                        global().responseTime().percentile(99.0).lte(50),
                        global().failedRequests().percent().lte(0.0));
    }

    @Override
    public void after() {
        target.verify(List.of(TOPIC));
        target.stop();
    }

    /** The two request shapes, shared with {@link MixedSimulation}. */
    static final class ChainBuilderFactory {

        private ChainBuilderFactory() {
        }

        static ChainBuilder single(GatlingTarget target) {
            return io.gatling.javaapi.core.CoreDsl
                    .exec(session -> session.set("id", UUID.randomUUID().toString()))
                    .exec(http("POST /v1/messages").post("/v1/messages")
                            .body(StringBody(session -> message(session.getString("id"))))
                            .check(responseTimeInMillis().saveAs("rt"), status().is(202)))
                    .exec(session -> {
                        target.record(session.contains("rt") ? session.getLong("rt") : null, session.isFailed());
                        if (!session.isFailed()) {
                            target.accepted.add(session.getString("id"));
                        }
                        return session;
                    });
        }

        static ChainBuilder batch(GatlingTarget target) {
            return io.gatling.javaapi.core.CoreDsl
                    .exec(session -> {
                        List<String> ids = java.util.stream.Stream.generate(() -> UUID.randomUUID().toString())
                                .limit(10).toList();
                        return session.set("ids", ids);
                    })
                    .exec(http("POST /v1/messages/batch").post("/v1/messages/batch")
                            .body(StringBody(session -> {
                                List<String> ids = session.getList("ids");
                                return "[" + String.join(",", ids.stream().map(IngestSimulation::message).toList())
                                        + "]";
                            }))
                            .check(responseTimeInMillis().saveAs("rt"), status().is(202)))
                    .exec(session -> {
                        target.record(session.contains("rt") ? session.getLong("rt") : null, session.isFailed());
                        if (!session.isFailed()) {
                            List<String> ids = session.getList("ids");
                            target.accepted.addAll(ids);
                        }
                        return session;
                    });
        }
    }
}
