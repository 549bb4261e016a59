package dev.dispatcher.app.api;

import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.examples.Example;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.info.License;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import io.swagger.v3.oas.models.servers.Server;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.springdoc.core.customizers.OperationCustomizer;
import org.springdoc.core.utils.SpringDocUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.method.HandlerMethod;
import tools.jackson.databind.JsonNode;

/**
 * The OpenAPI document at {@code /v3/api-docs} (springdoc; any authenticated caller may read it,
 * {@link ApiSecurityConfiguration}). springdoc infers paths, parameters and bodies from the controllers; this adds
 * what it cannot see: the three security schemes, each operation's roles ({@link ApiAccess}: the same table the
 * security chain enforces), and every RFC 9457 problem an operation can answer, under its status, as
 * {@code application/problem+json} with the {@link ProblemType} URIs as examples of {@code type}: the endpoint's own
 * ({@link Problems}) and those every {@code /v1} endpoint shares.
 *
 * <p>Client generators name their methods from each operation's {@code operationId} and document them from its
 * {@code summary}: every operation sets both ({@code @Operation} on the controllers), and the document passes
 * Redocly's {@code recommended} rules ({@code ApiDocsLintIT}). Its one server is {@code /}, the host that serves
 * the document, rather than the address springdoc would take from the request (a {@code localhost} behind a
 * proxy or in a test).
 */
@Configuration(proxyBeanMethods = false)
class ApiDocsConfiguration {

    static final String BASIC = "basic";
    static final String API_TOKEN = "apiToken";
    static final String JWT = "jwt";
    static final String PROBLEM = "Problem";
    static final String ABOUT_BLANK = "about:blank";
    static final String HEALTH = "/actuator/health";
    /**
     * The project publishes no open-source license (its repository has no license file), so the document says so
     * rather than claim one: all rights reserved. Change it together with the repository when one is chosen.
     */
    static final String LICENSE_NAME = "Proprietary: no license granted";
    static final String LICENSE_SPDX = "LicenseRef-Proprietary";

    static {
        // a JSON value of any shape (an audit entry's detail, before and after), not a bean to describe
        SpringDocUtils.getConfig().replaceWithClass(JsonNode.class, Object.class);
    }

    @Bean
    OpenAPI dispatcherApi() {
        return new OpenAPI()
                .info(new Info().title("Dispatcher").version("v1").description("""
                        Ingest into the transactional outbox, and the operator's reads and changes of the outbox, \
                        the inbox's dead letters and the relay. Every POST under /v1 declares Content-Type: \
                        application/json, with or without a body (else 415). Errors are RFC 9457 problems \
                        (application/problem+json) whose type names what went wrong. A guide with examples: \
                        docs/http-api.md in the repository.""")
                        .license(new License().name(LICENSE_NAME).identifier(LICENSE_SPDX)))
                .servers(List.of(new Server().url("/").description("the host that serves this document")))
                .components(new Components()
                        .addSecuritySchemes(BASIC, new SecurityScheme().type(SecurityScheme.Type.HTTP).scheme("basic")
                                .description("a user of dispatcher.security.users; password in Spring Security's"
                                        + " {id} form"))
                        .addSecuritySchemes(API_TOKEN, new SecurityScheme().type(SecurityScheme.Type.HTTP)
                                .scheme("bearer").bearerFormat("opaque").description("an API token whose SHA-256 is"
                                        + " in dispatcher.security.tokens; cheap to check, so give high-rate"
                                        + " producers tokens"))
                        .addSecuritySchemes(JWT, new SecurityScheme().type(SecurityScheme.Type.HTTP).scheme("bearer")
                                .bearerFormat("JWT").description("a JWT when spring.security.oauth2.resourceserver"
                                        + ".jwt.* is set; its scopes grant the roles (dispatcher:produce,"
                                        + " dispatcher:view, dispatcher:operate); a Bearer value of three"
                                        + " dot-separated parts is taken as a JWT"))
                        .addSchemas(PROBLEM, problemSchema()))
                .path(HEALTH, new PathItem().get(new Operation()
                        .operationId("getHealth")
                        .summary("Health of the service: db and kafka, each checked at most once a second")
                        .description("Public; component details for OPERATOR only. One client address gets a burst of "
                                + HealthCallLimit.BURST + " answers, then " + HealthCallLimit.CALLS_PER_SECOND
                                + " a second;"
                                + " a call beyond waits for its turn up to a second, else 429. Readiness"
                                + " (/actuator/health/readiness) follows the database alone.")
                        .security(List.of())
                        .responses(new ApiResponses()
                                .addApiResponse("200", new ApiResponse().description("every component UP"))
                                .addApiResponse("503", new ApiResponse().description("a component is DOWN"))
                                .addApiResponse("400", problemResponse(List.of(ProblemType.NON_CANONICAL_PATH)))
                                .addApiResponse("429", problemResponse(List.of(ProblemType.TOO_MANY_HEALTH_CALLS))))));
    }

    @Bean
    OperationCustomizer dispatcherOperations() {
        return ApiDocsConfiguration::describe;
    }

    /** Adds roles and problems to a {@code /v1} operation; leaves any other as springdoc made it. */
    static Operation describe(Operation operation, HandlerMethod handler) {
        RequestMapping mapping = AnnotatedElementUtils.findMergedAnnotation(handler.getMethod(), RequestMapping.class);
        if (mapping == null || mapping.method().length != 1 || mapping.path().length != 1
                || !mapping.path()[0].startsWith("/v1/")) {
            return operation;
        }
        HttpMethod method = HttpMethod.valueOf(mapping.method()[0].name());
        ApiAccess access = ApiAccess.of(method, mapping.path()[0]);
        operation.setSecurity(requirements(access));
        String roles = access.roles().isEmpty() ? "any authenticated caller" : String.join(" or ", access.roles());
        operation.setDescription((operation.getDescription() == null ? "" : operation.getDescription() + "\n\n")
                + "Role: " + roles + ".");
        Problems declared = handler.getMethodAnnotation(Problems.class);
        Set<ProblemType> problems = EnumSet.of(ProblemType.NON_CANONICAL_PATH, ProblemType.UNAUTHENTICATED,
                ProblemType.TOO_MANY_FAILED_LOGINS, ProblemType.INTERNAL_ERROR);
        if (!access.roles().isEmpty()) {
            problems.add(ProblemType.FORBIDDEN);
        }
        boolean mutation = !HttpMethod.GET.equals(method);
        if (mutation) {
            problems.add(ProblemType.UNSUPPORTED_MEDIA_TYPE);
        }
        if (declared == null || declared.database()) {
            problems.addAll(List.of(ProblemType.DATABASE_TIMEOUT, ProblemType.DATABASE_UNAVAILABLE));
            if (mutation) {
                problems.add(ProblemType.DATABASE_READ_ONLY);
            }
        }
        if (declared != null) {
            problems.addAll(List.of(declared.value()));
        }
        if (operation.getResponses() == null) {
            operation.setResponses(new ApiResponses());
        }
        problems.stream().collect(Collectors.groupingBy(type -> type.status().value(), TreeMap::new,
                        Collectors.toList()))
                .forEach((status, types) -> operation.getResponses().addApiResponse(String.valueOf(status),
                        problemResponse(types)));
        return operation;
    }

    /** The caller's alternatives: a Basic user or an API token holding one of the roles, or a JWT with the scope. */
    private static List<SecurityRequirement> requirements(ApiAccess access) {
        List<String> scopes = access.roles().stream().map(ApiAccess.SCOPES::get).toList();
        return List.of(new SecurityRequirement().addList(BASIC, access.roles()),
                new SecurityRequirement().addList(API_TOKEN, access.roles()),
                new SecurityRequirement().addList(JWT, scopes));
    }

    private static ApiResponse problemResponse(List<ProblemType> types) {
        Map<String, Example> examples = new LinkedHashMap<>();
        for (ProblemType type : types) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("type", type.uri().toString());
            body.put("title", type.status().getReasonPhrase());
            body.put("status", type.status().value());
            examples.put(type.slug(), new Example().value(body));
        }
        ApiResponse response = new ApiResponse()
                .description(types.getFirst().status().getReasonPhrase() + ": " + types.stream()
                        .map(ProblemType::slug).collect(Collectors.joining(", ")))
                .content(new Content().addMediaType(MediaType.APPLICATION_PROBLEM_JSON_VALUE,
                        new io.swagger.v3.oas.models.media.MediaType()
                                .schema(new Schema<>().$ref("#/components/schemas/" + PROBLEM)).examples(examples)));
        int status = types.getFirst().status().value();
        if (status == 429 || status == 503) {
            response.addHeaderObject("Retry-After", new Header().description("seconds to wait before retrying")
                    .schema(new IntegerSchema()));
        }
        return response;
    }

    /** RFC 9457's members, Dispatcher's extensions, and every {@code type} the API answers with. */
    private static Schema<?> problemSchema() {
        List<String> types = new ArrayList<>();
        for (ProblemType type : ProblemType.values()) {
            types.add(type.uri().toString());
        }
        types.add(ABOUT_BLANK);
        return new ObjectSchema()
                .description("An RFC 9457 problem. type is one of Dispatcher's (about:blank: a refusal of the web"
                        + " framework's own, such as 405 or 406)")
                .addProperty("type", new StringSchema()._enum(types))
                .addProperty("title", new StringSchema())
                .addProperty("status", new IntegerSchema())
                .addProperty("detail", new StringSchema().description("what went wrong, and whether anything was"
                        + " written"))
                .addProperty("instance", new StringSchema().description("the request path"))
                .addProperty("field", new StringSchema().description("the request part at fault: topic,"
                        + " [3].payload in a batch, If-Match"))
                .addProperty("current", new ObjectSchema().description("409 of an operator change: the row as it is"
                        + " now"))
                .addProperty("requestId", new StringSchema().description("500: the request's id in the log"));
    }
}
