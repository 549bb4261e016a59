package dev.dispatcher.app.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.OpsTestSupport;
import dev.dispatcher.testkit.TestServers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every metric the shipped Grafana dashboard and Prometheus rules reference exists, under that name, in the running
 * service's {@code /actuator/prometheus}: the service is made to publish, handle, dead-letter, take over an
 * expired lease and meet a missing topic first, so counters that appear only on first use are there.
 */
class OpsFilesMetricNamesIT extends OpsTestSupport {

    static final Path OPS = Path.of(System.getProperty("basedir", ".")).resolve("../ops").normalize();

    @Test
    void everyMetricTheDashboardAndTheAlertRulesUseIsExportedUnderThatName() throws IOException {
        Set<String> referenced = new TreeSet<>();
        dashboardExpressions().forEach(e -> referenced.addAll(PromQlMetricNames.of(e)));
        int fromDashboard = referenced.size();
        ruleExpressions().forEach(e -> referenced.addAll(PromQlMetricNames.of(e)));
        assertThat(fromDashboard).as("names found in the dashboard").isGreaterThanOrEqualTo(10);
        assertThat(referenced).contains("dispatcher_queue_oldest_age_seconds", "dispatcher_lease_expirations_total",
                "resilience4j_circuitbreaker_state", "http_server_requests_seconds_count");

        makeTheServiceEmitEachMetric();
        Set<String> missing = await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> missing(referenced, scrape()), Set::isEmpty);
        assertThat(missing).as("referenced by ops/ but not exported").isEmpty();

        // the missing topic created: its row goes out, and nothing is left behind for the tests sharing the service
        TestServers.kafka().createTopic(LATE_TOPIC, 1);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> count("SELECT count(*) FROM outbox_message WHERE topic = ? AND status = 'DELIVERED'",
                        LATE_TOPIC) == 1);
    }

    /** A topic created only after its row has failed to publish ({@code dispatcher.publish.failures}). */
    private static final String LATE_TOPIC = "ops.late." + UUID.randomUUID();

    private void makeTheServiceEmitEachMetric() {
        // published, then handled by the inbox's webhook; the ingest request itself is an http.server.requests
        as(PRODUCER).post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"topic\":\"" + TRACED_TOPIC + "\",\"type\":\"Metric\",\"payload\":{}}")
                .exchange().expectStatus().isAccepted();
        // refused by the webhook for good: dead-lettered in the inbox
        as(PRODUCER).post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"topic\":\"" + TRACED_TOPIC + "\",\"type\":\"Metric\",\"payload\":\"poison\"}")
                .exchange().expectStatus().isAccepted();
        // a row whose worker died holding its lease: the next claim takes it over and counts the expiration
        execute("INSERT INTO outbox_message (id, topic, event_type, payload, attempts, lease_owner, lease_token,"
                + " lease_until) VALUES (?, ?, 'Metric', convert_to('{}', 'UTF8'), 1, 'crashed-worker',"
                + " gen_random_uuid(), now() - interval '1 minute')", UUID.randomUUID(), PLAIN_TOPIC);
        // a row for a topic that does not exist yet: held back, counted as a publish failure (unknown_topic)
        execute("INSERT INTO outbox_message (id, topic, event_type, payload) VALUES (?, ?, 'Metric',"
                + " convert_to('{}', 'UTF8'))", UUID.randomUUID(), LATE_TOPIC);
    }

    private String scrape() {
        return as(OPERATOR).get().uri("/actuator/prometheus").exchange().expectStatus().isOk()
                .expectBody(String.class).returnResult().getResponseBody();
    }

    private static Set<String> missing(Set<String> referenced, String scrape) {
        Set<String> exported = new TreeSet<>();
        scrape.lines().filter(l -> !l.startsWith("#") && !l.isBlank())
                .forEach(l -> exported.add(l.split("[{ ]", 2)[0]));
        Set<String> missing = new TreeSet<>(referenced);
        missing.removeAll(exported);
        return missing;
    }

    private static List<String> dashboardExpressions() throws IOException {
        JsonNode dashboard = JsonMapper.builder().build().readTree(Files.readString(OPS.resolve("grafana/dispatcher.json")));
        return dashboard.findValues("expr").stream().map(JsonNode::asString).toList();
    }

    @SuppressWarnings("unchecked")
    private static List<String> ruleExpressions() throws IOException {
        Map<String, Object> rules = new Yaml().load(Files.readString(OPS.resolve("prometheus/dispatcher-rules.yml")));
        List<Map<String, Object>> groups = (List<Map<String, Object>>) rules.get("groups");
        List<String> expressions = groups.stream()
                .flatMap(g -> ((List<Map<String, Object>>) g.get("rules")).stream())
                .map(r -> (String) r.get("expr"))
                .toList();
        assertThat(expressions).as("alert rules").hasSizeGreaterThanOrEqualTo(5).doesNotContainNull();
        return expressions;
    }
}
