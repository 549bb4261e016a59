package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The OpenAPI document the service serves passes Redocly's {@code recommended} rules with no finding, errors and
 * warnings alike: every operation has a {@code summary} and an {@code operationId} (client generators name and
 * document their methods from them), the document has a {@code license}, a server that is not {@code localhost},
 * valid examples, and the rest of the rule set.
 *
 * <p>The rules are Redocly's own, not a copy: the test runs {@code @redocly/cli lint}, pinned in
 * {@value #REDOCLY_DIRECTORY} ({@code package.json} and its lock file), on the document as served. The CLI is
 * installed by {@code npm ci --prefix dispatcher-app/src/test/redocly} ({@code .ci/run} does it); where it is not
 * installed (no npm, no registry), the test is skipped and says so. {@link ApiDocsIT} checks the properties the
 * rules found missing without Node.
 */
class ApiDocsLintIT extends ApiTestSupport {

    static final String REDOCLY_DIRECTORY = "src/test/redocly";
    static final Path REDOCLY = Path.of(REDOCLY_DIRECTORY);
    static final Path CLI = REDOCLY.resolve("node_modules/.bin/redocly");

    @Test
    void theServedDocumentPassesRedoclysRecommendedRules() throws IOException, InterruptedException {
        assumeTrue(Files.isExecutable(CLI), "Redocly's CLI is not installed at " + CLI.toAbsolutePath()
                + ": run `npm ci --prefix dispatcher-app/src/test/redocly` (.ci/run does) to lint the OpenAPI document");
        byte[] document = producer().get().uri("/v3/api-docs").exchange().expectStatus().isOk()
                .expectBody(byte[].class).returnResult().getResponseBody();
        Path served = Files.createTempFile("dispatcher-openapi-", ".json");
        Path report = Files.createTempFile("dispatcher-openapi-lint-", ".json");
        Path errors = Files.createTempFile("dispatcher-openapi-lint-", ".err");
        try {
            Files.write(served, document);
            ProcessBuilder lint = new ProcessBuilder(CLI.toAbsolutePath().toString(), "lint",
                    "--config", REDOCLY.resolve("redocly.yaml").toAbsolutePath().toString(),
                    "--format", "json", served.toString())
                    .redirectOutput(report.toFile())
                    .redirectError(errors.toFile());
            // no usage data sent to Redocly, no look-up of a newer version
            lint.environment().put("REDOCLY_TELEMETRY", "off");
            lint.environment().put("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true");
            Process process = lint.start();
            assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("redocly lint ends").isTrue();
            String output = Files.readString(report, StandardCharsets.UTF_8);
            assertThat(output).as("redocly lint's JSON report; its error output: %s",
                    Files.readString(errors, StandardCharsets.UTF_8)).startsWith("{");

            JsonNode result = JsonMapper.builder().build().readTree(output);
            List<String> findings = new ArrayList<>();
            result.path("problems").forEach(problem -> findings.add(problem.path("severity").asString() + " "
                    + problem.path("ruleId").asString() + " at " + problem.at("/location/0/pointer").asString()
                    + ": " + problem.path("message").asString()));
            assertThat(findings).as("Redocly's findings on the served document").isEmpty();
            assertThat(result.at("/totals/errors").asInt() + result.at("/totals/warnings").asInt()).isZero();
            assertThat(process.exitValue()).isZero();
        } finally {
            Files.deleteIfExists(served);
            Files.deleteIfExists(report);
            Files.deleteIfExists(errors);
        }
    }
}
