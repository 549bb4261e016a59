package dev.dispatcher.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Prints the {@code gatling-ingest} RESULT line after a simulation: request rate, p99 and failures as the simulation
 * recorded them per request, lost and duplicates from its Kafka check (both in
 * {@code target/gatling-ingest-check.properties}), and the newest Gatling report's path. Run by {@code exec:java@gatling-result} right after {@code gatling:test}.
 */
public final class GatlingResult {

    private GatlingResult() {
    }

    public static void main(String[] args) throws IOException {
        Path reports = Path.of(args.length > 0 ? args[0] : "target/gatling");
        Path newest;
        try (Stream<Path> runs = Files.list(reports)) {
            newest = runs.filter(p -> Files.exists(p.resolve("index.html")))
                    .max(Comparator.comparing(p -> p.toFile().lastModified()))
                    .orElseThrow(() -> new IllegalStateException("no Gatling report under " + reports));
        }
        Properties check = new Properties();
        Path checkFile = reports.toAbsolutePath().getParent().resolve("gatling-ingest-check.properties");
        try (var in = Files.newBufferedReader(checkFile)) {
            check.load(in);
        }
        System.out.println("Gatling report: " + newest.resolve("index.html").toAbsolutePath());
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("name", "gatling-ingest");
        r.put("req_per_s", Double.parseDouble(check.getProperty("req_per_s", "0")));
        r.put("p99_ms", Long.parseLong(check.getProperty("p99_ms", "-1")));
        r.put("failed", Long.parseLong(check.getProperty("failed", "-1")));
        r.put("requests", Long.parseLong(check.getProperty("requests", "-1")));
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
