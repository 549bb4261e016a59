package dev.dispatcher.load.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The harness's HTTP view of one running service, as an operator has it: the health endpoint, the Prometheus
 * scrape, {@code /v1/stats} and the cluster-wide pause switch ({@code POST /v1/relay/pause|resume}: the instance
 * that answers re-reads the switch at once, the others within their poll interval). For the harness's threads;
 * every call waits for its answer.
 */
public final class ServiceClient {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final String baseUrl;
    private final ServiceAccess access;

    public ServiceClient(String baseUrl, ServiceAccess access) {
        this.baseUrl = baseUrl;
        this.access = access;
    }

    /** {@code http://localhost:<port>}. */
    public String baseUrl() {
        return baseUrl;
    }

    public ServiceAccess access() {
        return access;
    }

    /** Whether {@code /actuator/health} answers {@code UP}; false while the service is not listening. */
    public boolean healthy() throws InterruptedException {
        try {
            HttpResponse<String> health = HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl + "/actuator/health"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return health.statusCode() == 200 && health.body().contains("\"UP\"");
        } catch (IOException e) {
            return false;
        }
    }

    /** The Prometheus text exposition; an answer other than {@code 200} is an error. */
    public String prometheus() throws IOException, InterruptedException {
        return get("/actuator/prometheus");
    }

    /** {@code GET /v1/stats}: the backlog, dead letters and the pause switch. */
    public JsonNode stats() throws IOException, InterruptedException {
        return JSON.readTree(get("/v1/stats"));
    }

    /** Live rows by {@code /v1/stats} ({@code backlogTotal}), or -1 when it did not answer (progress lines only). */
    public long backlog() {
        try {
            return stats().path("backlogTotal").asLong(-1);
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Pauses the relay cluster-wide; this instance stops claiming at once. */
    public void pause() throws IOException, InterruptedException {
        post("/v1/relay/pause");
    }

    /** Resumes the relay cluster-wide; this instance claims again at once. */
    public void resume() throws IOException, InterruptedException {
        post("/v1/relay/resume");
    }

    /** Pauses one source's relay ({@code ?source=}) cluster-wide; this instance stops claiming it at once. */
    public void pause(String source) throws IOException, InterruptedException {
        post("/v1/relay/pause?source=" + source);
    }

    /** Resumes one source's relay ({@code ?source=}); this instance claims it again at once. */
    public void resume(String source) throws IOException, InterruptedException {
        post("/v1/relay/resume?source=" + source);
    }

    private String get(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl + path))
                .header("Authorization", "Bearer " + access.token()).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    private void post(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl + path))
                .header("Authorization", "Bearer " + access.token()).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("POST " + path + " answered " + response.statusCode() + ": " + response.body());
        }
    }
}
