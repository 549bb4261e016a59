package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.result.method.RequestMappingInfo;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.pattern.PathPattern;
import tools.jackson.databind.JsonNode;

/**
 * The OpenAPI document at {@code /v3/api-docs} describes the API the service maps: every {@code /v1} path and method
 * that Spring maps at run time (not a list kept here, so an endpoint added without docs fails), every problem type
 * ({@link ProblemType}) under its status as {@code application/problem+json}, the roles the security chain enforces,
 * and the ingest body the parser reads; the guide ({@code docs/http-api.md}) names each operation and problem type.
 * Reading the document needs credentials of any role, and opens nothing else.
 */
class ApiDocsIT extends ApiTestSupport {

    static final Path GUIDE = Path.of("../docs/http-api.md");

    @Autowired
    @Qualifier("requestMappingHandlerMapping")
    RequestMappingHandlerMapping mappings;

    @Autowired
    ApplicationContext context;

    @Test
    void everyMappedV1PathIsDocumentedWithEachOfItsMethods() {
        Map<String, Set<String>> mapped = new TreeMap<>();
        for (RequestMappingInfo info : mappings.getHandlerMethods().keySet()) {
            for (PathPattern pattern : info.getPatternsCondition().getPatterns()) {
                if (pattern.getPatternString().startsWith("/v1/")) {
                    assertThat(info.getMethodsCondition().getMethods()).as("%s maps a method", pattern).isNotEmpty();
                    for (RequestMethod method : info.getMethodsCondition().getMethods()) {
                        mapped.computeIfAbsent(pattern.getPatternString(), p -> new TreeSet<>())
                                .add(method.name().toLowerCase(Locale.ROOT));
                    }
                }
            }
        }
        Map<String, Set<String>> documented = new TreeMap<>();
        docs().path("paths").properties().forEach(path -> documented.put(path.getKey(),
                new TreeSet<>(path.getValue().propertyNames())));
        assertThat(documented.remove("/actuator/health")).as("the public health path").containsExactly("get");

        assertThat(mapped).as("the /v1 mappings").hasSizeGreaterThan(15).containsKey("/v1/messages");
        assertThat(documented).isEqualTo(mapped);
        for (RouterFunction<?> router : context.getBeansOfType(RouterFunction.class).values()) {
            assertThat(router.toString()).as("a /v1 route is a controller mapping, which the document shows")
                    .doesNotContain("/v1");
        }
    }

    @Test
    void everyProblemTypeIsDocumentedUnderItsStatusAsProblemJson() {
        JsonNode docs = docs();
        Map<ProblemType, List<String>> documentedAt = new TreeMap<>();
        docs.path("paths").properties().forEach(path -> path.getValue().properties().forEach(operation ->
                operation.getValue().path("responses").properties().forEach(response -> {
                    JsonNode problem = response.getValue().path("content").path("application/problem+json");
                    problem.path("examples").properties().forEach(example -> {
                        ProblemType type = type(example.getValue().path("value").path("type").asString());
                        assertThat(response.getKey()).as("%s of %s %s", type, operation.getKey(), path.getKey())
                                .isEqualTo(String.valueOf(type.status().value()));
                        assertThat(problem.path("schema").path("$ref").asString())
                                .isEqualTo("#/components/schemas/Problem");
                        documentedAt.computeIfAbsent(type, t -> new ArrayList<>())
                                .add(operation.getKey() + " " + path.getKey());
                    });
                })));

        assertThat(documentedAt.keySet()).containsExactlyInAnyOrder(ProblemType.values());
        assertThat(docs.at("/components/schemas/Problem/properties/type/enum")).extracting(JsonNode::asString)
                .containsAll(Arrays.stream(ProblemType.values()).map(t -> t.uri().toString()).toList());
        // each where it belongs
        assertThat(documentedAt.get(ProblemType.TOO_MANY_HEALTH_CALLS)).containsExactly("get /actuator/health");
        assertThat(documentedAt.get(ProblemType.PRECONDITION_REQUIRED)).containsExactlyInAnyOrder(
                "post /v1/messages/{id}/replay", "post /v1/messages/{id}/dead-letter",
                "post /v1/inbox/{consumer}/messages/{id}/replay");
        assertThat(documentedAt.get(ProblemType.BACKLOG_FULL)).containsExactlyInAnyOrder("post /v1/messages",
                "post /v1/messages/batch", "post /v1/sources/{source}/messages",
                "post /v1/sources/{source}/messages/batch");
        assertThat(documentedAt.get(ProblemType.UNSUPPORTED_MEDIA_TYPE)).contains("post /v1/relay/pause")
                .noneMatch(operation -> operation.startsWith("get "));
        assertThat(docs.at("/paths/~1v1~1messages/post/responses/503/headers/Retry-After").isObject()).isTrue();
    }

    @Test
    void documentedRolesAreTheOnesTheSecurityChainEnforces() {
        int checked = 0;
        for (Map.Entry<String, JsonNode> path : docs().path("paths").properties()) {
            if (path.getKey().equals("/actuator/health")) {
                assertThat(path.getValue().at("/get/security").size()).as("health is public").isZero();
                http.get().uri(path.getKey()).exchange().expectStatus().isOk();
                continue;
            }
            for (Map.Entry<String, JsonNode> operation : path.getValue().properties()) {
                List<String> roles = new ArrayList<>();
                operation.getValue().path("security").forEach(requirement -> requirement.path("basic")
                        .forEach(role -> roles.add(role.asString())));
                assertThat(operation.getValue().path("security").size()).as("basic, API token, JWT").isEqualTo(3);
                if (roles.isEmpty()) {
                    continue; // any authenticated caller
                }
                String outsider = roles.contains("VIEWER") ? "producer" : "viewer";
                String uri = path.getKey().replace("{id}", UUID.randomUUID().toString())
                        .replace("{consumer}", "orders").replace("{source}", "default");
                as(outsider).method(HttpMethod.valueOf(operation.getKey().toUpperCase(Locale.ROOT))).uri(uri)
                        .contentType(MediaType.APPLICATION_JSON).exchange()
                        .expectStatus().isForbidden();
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(15);
    }

    @Test
    void theIngestBodyHasTheFieldsTheParserKnows() {
        JsonNode schema = docs().at("/components/schemas/MessageRequest");
        assertThat(schema.path("required")).extracting(JsonNode::asString)
                .containsExactlyInAnyOrder("topic", "type", "payload");
        // the parser names the fields it knows when it refuses another
        String detail = producer().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"notAField\": 1}").exchange()
                .expectStatus().isBadRequest()
                .expectBody(JsonNode.class).returnResult().getResponseBody().path("detail").asString();
        assertThat(schema.path("properties").propertyNames())
                .containsExactlyInAnyOrderElementsOf(List.of(detail.replaceFirst(".*known fields are ", "")
                        .split(", ")));
    }

    @Test
    void theGuideNamesEveryOperationAndProblemType() throws IOException {
        String guide = Files.readString(GUIDE);
        List<String> missing = new ArrayList<>();
        docs().path("paths").properties().forEach(path -> path.getValue().propertyNames().forEach(method -> {
            String operation = "`" + method.toUpperCase(Locale.ROOT) + " " + path.getKey() + "`";
            if (!guide.contains(operation)) {
                missing.add(operation);
            }
        }));
        for (ProblemType type : ProblemType.values()) {
            if (!guide.contains("`" + type.slug() + "`")) {
                missing.add(type.slug());
            }
        }
        assertThat(missing).as("what %s leaves out", GUIDE).isEmpty();
    }

    /**
     * What client generators name and document their methods from, checked without Node ({@link ApiDocsLintIT}
     * runs Redocly's whole rule set): a summary and an operationId of our own on every operation (springdoc would
     * take the method's name, and number a second {@code replay} {@code replay_1}), and the document's license.
     */
    @Test
    void everyOperationHasASummaryAndANamedOperationId() {
        JsonNode docs = docs();
        Set<String> operationIds = new TreeSet<>();
        List<String> operations = new ArrayList<>();
        docs.path("paths").properties().forEach(path -> path.getValue().properties().forEach(operation -> {
            String name = operation.getKey() + " " + path.getKey();
            operations.add(name);
            assertThat(operation.getValue().path("summary").asString()).as("summary of %s", name).isNotBlank();
            String operationId = operation.getValue().path("operationId").asString();
            assertThat(operationId).as("operationId of %s", name).matches("[a-z][A-Za-z]+");
            assertThat(operationIds.add(operationId)).as("%s's operationId %s is unique", name, operationId).isTrue();
        }));
        assertThat(operations).hasSizeGreaterThan(15);
        assertThat(docs.at("/info/license/name").asString()).isEqualTo(ApiDocsConfiguration.LICENSE_NAME);
        assertThat(docs.at("/info/license/identifier").asString()).isEqualTo(ApiDocsConfiguration.LICENSE_SPDX);
        assertThat(docs.at("/servers/0/url").asString()).isEqualTo("/");
    }

    @Test
    void theDocumentNeedsCredentialsOfAnyRoleAndOpensNothingElse() {
        http.get().uri("/v3/api-docs").exchange().expectStatus().isUnauthorized();
        http.get().uri("/v3/api-docs.yaml").exchange().expectStatus().isUnauthorized();
        for (WebTestClient caller : List.of(producer(), viewer(), bearer(PRODUCER_TOKEN))) {
            caller.get().uri("/v3/api-docs").exchange().expectStatus().isOk()
                    .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_JSON);
        }
        producer().get().uri("/v3/api-docs.yaml").exchange().expectStatus().isOk();
        producer().get().uri("/v3/api-docs/x").exchange().expectStatus().isForbidden();
        producer().get().uri("/v3/other").exchange().expectStatus().isForbidden();
        viewer().post().uri("/v3/api-docs").contentType(MediaType.APPLICATION_JSON).exchange()
                .expectStatus().isForbidden();
    }

    private JsonNode docs() {
        return producer().get().uri("/v3/api-docs").exchange().expectStatus().isOk()
                .expectBody(JsonNode.class).returnResult().getResponseBody();
    }

    private static ProblemType type(String uri) {
        assertThat(uri).startsWith(ProblemType.BASE);
        return ProblemType.valueOf(uri.substring(ProblemType.BASE.length()).toUpperCase(Locale.ROOT).replace('-', '_'));
    }
}
