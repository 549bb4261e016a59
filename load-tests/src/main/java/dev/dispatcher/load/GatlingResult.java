package dev.dispatcher.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Prints the {@code gatling-ingest} RESULT line after a simulation: request rate, p99 and failures from the newest
 * Gatling report's {@code js/stats.json}, lost and duplicates from the Kafka check the simulation wrote, and the
 * report's path. Run by {@code exec:java@gatling-result} right after {@code gatling:test}.
 */
public final class GatlingResult {

    private GatlingResult() {
    }

    public static void main(String[] args) throws IOException {
        Path reports = Path.of(args.length > 0 ? args[0] : "target/gatling");
        Path newest;
        try (Stream<Path> runs = Files.list(reports)) {
            newest = runs.filter(p -> Files.exists(p.resolve("js/stats.json")))
                    .max(Comparator.comparing(p -> p.toFile().lastModified()))
                    .orElseThrow(() -> new IllegalStateException("no Gatling report under " + reports));
        }
        JsonNode stats = JsonMapper.builder().build().readTree(newest.resolve("js/stats.json").toFile()).path("stats");
        Properties check = new Properties();
        Path checkFile = Path.of("target/gatling-ingest-check.properties");
        if (Files.exists(checkFile)) {
            try (var in = Files.newBufferedReader(checkFile)) {
                check.load(in);
            }
        }
        System.out.println("Gatling report: " + newest.resolve("index.html").toAbsolutePath());
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("name", "gatling-ingest");
        r.put("req_per_s", stats.path("meanNumberOfRequestsPerSecond").path("total").asDouble());
        r.put("p99_ms", stats.path("percentiles4").path("total").asDouble());
        r.put("failed", stats.path("numberOfRequests").path("ko").asLong());
        r.put("requests", stats.path("numberOfRequests").path("total").asLong());
        r.put("accepted", Long.parseLong(check.getProperty("accepted", "-1")));
        r.put("lost", Long.parseLong(check.getProperty("lost", "-1")));
        r.put("duplicates", Long.parseLong(check.getProperty("duplicates", "-1")));
        r.put("pg_fsync", true);
        r.put("brokers", 1);
        r.put("ordering", "per-key");
        r.put("keys", 500);
        r.put("payload_bytes", 300);
        System.out.println("RESULT " + RelayBenchmark.json(r));
    }
}
