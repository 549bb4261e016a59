package dev.dispatcher.image;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The Kubernetes manifests of ops/kubernetes (docs/deployment.md), read the way kustomize assembles them (the
 * kustomization's resources, directories included, and its ConfigMap generators' files) without kubectl, and checked
 * against the service: the probes' paths are health groups the service serves on the port it listens on, every
 * environment variable binds (by Spring's relaxed binding) to a property docs/configuration.md lists, and the
 * autoscaler's query reads metrics the service exports.
 */
class KubernetesManifestsTest {

    private static final Path ROOT = Path.of(System.getProperty("dispatcher.image.root", ".."));
    private static final Path BASE = ROOT.resolve("ops/kubernetes");
    /** Variables the JVM reads, not Spring. */
    private static final Set<String> JVM_VARIABLES = Set.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS");

    private static List<Map<String, Object>> resources;
    private static Map<String, Object> serviceConfig;

    @BeforeAll
    static void render() throws IOException {
        resources = new ArrayList<>();
        load(BASE, resources);
        serviceConfig = yaml(ROOT.resolve("dispatcher-app/src/main/resources/application.yml")).getFirst();
    }

    @Test
    void holdsWhatADeploymentNeeds() {
        assertThat(resources.stream().map(r -> r.get("kind") + "/" + name(r)))
                .contains("Deployment/dispatcher", "Service/dispatcher", "PodDisruptionBudget/dispatcher",
                        "Secret/dispatcher-credentials", "ServiceMonitor/dispatcher", "ScaledObject/dispatcher",
                        "ConfigMap/dispatcher-grafana-dashboard", "ConfigMap/dispatcher-prometheus-rules");
    }

    @Test
    void probesAskTheServicesHealthGroupsOnItsPort() {
        Map<String, Object> container = container();
        Map<String, Object> management = map(serviceConfig, "management");
        assertThat(bool(map(map(map(management, "endpoint"), "health"), "probes"), "enabled"))
                .as("management.endpoint.health.probes.enabled").isTrue();
        Set<String> groups = new LinkedHashSet<>(List.of("liveness", "readiness"));
        groups.addAll(map(map(map(management, "endpoint"), "health"), "group").keySet());
        Object basePath = map(map(management, "endpoints"), "web").get("base-path");
        assertThat(basePath).as("management.endpoints.web.base-path (the probes assume /actuator)").isNull();
        assertThat(map(serviceConfig, "management").get("server")).as("no separate management port").isNull();
        Object serverPort = map(serviceConfig, "server").getOrDefault("port", 8080);

        List<Map<String, Object>> ports = list(container, "ports");
        for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
            Map<String, Object> get = map(map(container, probe), "httpGet");
            String path = (String) get.get("path");
            assertThat(path).as(probe).startsWith("/actuator/health/");
            assertThat(groups).as(probe + "'s health group").contains(path.substring("/actuator/health/".length()));
            Object port = get.get("port");
            Object number = port instanceof String portName ? ports.stream()
                    .filter(p -> portName.equals(p.get("name"))).map(p -> p.get("containerPort")).findFirst()
                    .orElse(null) : port;
            assertThat(number).as(probe + "'s port (server.port)").isEqualTo(serverPort);
        }
        assertThat(map(map(container, "readinessProbe"), "httpGet").get("path"))
                .isEqualTo("/actuator/health/readiness");
    }

    @Test
    void gracePeriodCoversPreStopAndTheDrain() {
        Map<String, Object> pod = map(map(deployment(), "spec"), "template");
        int grace = (Integer) map(pod, "spec").get("terminationGracePeriodSeconds");
        int preStop = (Integer) map(map(map(container(), "lifecycle"), "preStop"), "sleep").get("seconds");
        String phase = environment().get("SPRING_LIFECYCLE_TIMEOUTPERSHUTDOWNPHASE");
        assertThat(phase).as("the shutdown phase's timeout").matches("\\d+s");
        int phaseSeconds = Integer.parseInt(phase.substring(0, phase.length() - 1));
        // the relay's drain and the web server's graceful shutdown are two phases
        assertThat(grace).isGreaterThan(preStop + 2 * phaseSeconds);
    }

    @Test
    void everyEnvironmentVariableBindsToADocumentedProperty() throws IOException {
        List<String> documented = documentedProperties();
        assertThat(documented).contains("dispatcher.relay.batch-size", "spring.r2dbc.url", "spring.config.import");
        Map<String, String> environment = environment();
        assertThat(environment).isNotEmpty();
        for (String variable : environment.keySet()) {
            if (JVM_VARIABLES.contains(variable)) {
                continue;
            }
            assertThat(documented.stream().anyMatch(property -> binds(variable, property)))
                    .as("%s binds to a property of docs/configuration.md", variable).isTrue();
        }
        // the configtree files are properties too
        Map<String, Object> secret = resources.stream().filter(r -> "Secret".equals(r.get("kind"))).findFirst()
                .orElseThrow();
        for (String key : map(secret, "stringData").keySet()) {
            if (key.startsWith("spring.") || key.startsWith("dispatcher.")) {
                assertThat(documented.stream().anyMatch(property -> matches(key, property)))
                        .as("%s (a configtree file) is a property of docs/configuration.md", key).isTrue();
            }
        }
        assertThat(binds("DISPATCHER_SOURCES_0_URL", "dispatcher.sources[i].url")).isTrue();
        assertThat(binds("DISPATCHER_RELAY_BATCH_SIZE", "dispatcher.relay.batch-size")).isTrue();
        assertThat(binds("DISPATCHER_RELAY_BATCHES", "dispatcher.relay.batch-size")).isFalse();
        assertThat(binds("DISPATCHER_SECURITY_TOKENS_1_ROLES_0", "dispatcher.security.tokens[i].roles")).isTrue();
    }

    @Test
    void deploymentDocsVariablesBindToDocumentedProperties() throws IOException {
        List<String> documented = documentedProperties();
        Matcher variables = Pattern.compile("\\b((?:DISPATCHER|SPRING|LOGGING)_[A-Z0-9_]*[A-Z0-9])\\b")
                .matcher(Files.readString(ROOT.resolve("docs/deployment.md")));
        int seen = 0;
        while (variables.find()) {
            String variable = variables.group(1);
            seen++;
            assertThat(documented.stream().anyMatch(property -> binds(variable, property)))
                    .as("%s (docs/deployment.md) binds to a property of docs/configuration.md", variable).isTrue();
        }
        assertThat(seen).as("variables in docs/deployment.md").isGreaterThan(20);
    }

    @Test
    void autoscalerReadsAMetricTheServiceExports() throws IOException {
        Map<String, Object> scaled = resources.stream().filter(r -> "ScaledObject".equals(r.get("kind")))
                .findFirst().orElseThrow();
        List<Map<String, Object>> triggers = list(map(scaled, "spec"), "triggers");
        String metrics = Files.readString(ROOT.resolve(
                "dispatcher-app/src/main/java/dev/dispatcher/app/observe/DispatcherMetrics.java"));
        String dashboard = Files.readString(ROOT.resolve("ops/grafana/dispatcher.json"));
        for (Map<String, Object> trigger : triggers) {
            assertThat(trigger.get("type")).isEqualTo("prometheus");
            String query = (String) map(trigger, "metadata").get("query");
            Matcher names = Pattern.compile("dispatcher_[a-z_]+").matcher(query);
            assertThat(names.find()).as("a dispatcher metric in " + query).isTrue();
            do {
                String name = names.group();
                String meter = name.replaceFirst("_(seconds|total)$", "").replace('_', '.');
                assertThat(metrics).as("the meter %s (scraped as %s) in DispatcherMetrics", meter, name)
                        .contains("\"" + meter + "\"");
                assertThat(dashboard).as("%s as the dashboard reads it", name).contains(name);
            } while (names.find());
            assertThat(query).contains("queue=\"outbox\"");
        }
        Map<String, Object> spec = map(scaled, "spec");
        int max = (Integer) spec.get("maxReplicaCount");
        assertThat(max).isGreaterThanOrEqualTo((Integer) spec.get("minReplicaCount"));
        // docs/deployment.md's bound: the pool, the LISTEN connection and Flyway's at start-up, an instance each,
        // within PostgreSQL's default 100 connections less 3 reserved and 25 left for the applications
        int pool = (Integer) map(map(map(serviceConfig, "spring"), "r2dbc"), "pool").get("max-size");
        assertThat(max * (pool + 2)).as("connections of maxReplicaCount instances").isLessThanOrEqualTo(100 - 3 - 25);
    }

    /** Whether {@code variable} binds, by Spring's relaxed binding, to {@code property} ({@code [i]}: any index). */
    static boolean binds(String variable, String property) {
        Matcher index = Pattern.compile("_(\\d+)(_|$)").matcher(variable);
        String concrete = property.replace("[i]", "[" + (index.find() ? index.group(1) : "0") + "]");
        if (concrete.endsWith(".*")) {
            String prefix = concrete.substring(0, concrete.length() - 2);
            String mapped = variable.toLowerCase().replace('_', '.');
            return mapped.startsWith(prefix.replace("-", "") + ".") || mapped.startsWith(prefix + ".");
        }
        ConfigurationPropertySource source = ConfigurationPropertySources.from(new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, Map.of(variable, "x"))).iterator().next();
        // adapt: map keys such as statementTimeout are not in the canonical form
        if (source.getConfigurationProperty(ConfigurationPropertyName.adapt(concrete, '.')) != null) {
            return true;
        }
        // an element of a list of strings: ..._ROLES_0
        Matcher element = Pattern.compile("_(\\d+)$").matcher(variable);
        return element.find() && source.getConfigurationProperty(
                ConfigurationPropertyName.adapt(concrete + "[" + element.group(1) + "]", '.')) != null;
    }

    private static boolean matches(String name, String property) {
        return property.endsWith(".*") ? name.startsWith(property.substring(0, property.length() - 1))
                : name.equals(property);
    }

    /**
     * The property names docs/configuration.md lists: the first column of its tables, where {@code `a.b.c` /
     * `d`} names a.b.c and a.b.d, and {@code a.b.*} every property under a.b.
     */
    static List<String> documentedProperties() throws IOException {
        List<String> properties = new ArrayList<>();
        Pattern code = Pattern.compile("`([^`]+)`");
        for (String line : Files.readAllLines(ROOT.resolve("docs/configuration.md"))) {
            if (!line.startsWith("| `")) {
                continue;
            }
            String first = line.substring(1, line.indexOf(" |", 1));
            Matcher m = code.matcher(first);
            String parent = null;
            while (m.find()) {
                String name = m.group(1);
                if (name.contains(".")) {
                    parent = name.substring(0, name.lastIndexOf('.'));
                    properties.add(name);
                } else if (parent != null) {
                    properties.add(parent + "." + name);
                }
            }
        }
        return properties;
    }

    private static Map<String, String> environment() {
        Map<String, String> environment = new LinkedHashMap<>();
        for (Map<String, Object> variable : list(container(), "env")) {
            Object value = variable.get("value");
            environment.put((String) variable.get("name"), value == null ? "(from " + variable.keySet() + ")"
                    : value.toString());
        }
        return environment;
    }

    private static Map<String, Object> deployment() {
        return resources.stream().filter(r -> "Deployment".equals(r.get("kind"))).findFirst().orElseThrow();
    }

    private static Map<String, Object> container() {
        List<Map<String, Object>> containers = list(map(map(map(deployment(), "spec"), "template"), "spec"),
                "containers");
        assertThat(containers).hasSize(1);
        return containers.getFirst();
    }

    /** A kustomization's resources (files and kustomization directories) and its generated ConfigMaps. */
    private static void load(Path directory, List<Map<String, Object>> into) throws IOException {
        Map<String, Object> kustomization = yaml(directory.resolve("kustomization.yaml")).getFirst();
        for (Object resource : (List<?>) kustomization.getOrDefault("resources", List.of())) {
            Path path = directory.resolve(resource.toString()).normalize();
            assertThat(path).as("resource %s of %s", resource, directory).exists();
            if (Files.isDirectory(path)) {
                load(path, into);
            } else {
                into.addAll(yaml(path));
            }
        }
        for (Object generator : (List<?>) kustomization.getOrDefault("configMapGenerator", List.of())) {
            @SuppressWarnings("unchecked")
            Map<String, Object> g = (Map<String, Object>) generator;
            for (Object file : (List<?>) g.get("files")) {
                Path path = directory.resolve(file.toString()).normalize();
                assertThat(path).as("file %s of ConfigMap %s", file, g.get("name")).isRegularFile();
                assertThat(path.startsWith(directory)).as("kustomize reads generator files from inside %s only",
                        directory).isTrue();
            }
            into.add(Map.of("kind", "ConfigMap", "metadata", Map.of("name", g.get("name"))));
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> yaml(Path file) throws IOException {
        Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()));
        List<Map<String, Object>> documents = new ArrayList<>();
        for (Object document : yaml.loadAll(Files.readString(file))) {
            if (document != null) {
                documents.add((Map<String, Object>) document);
            }
        }
        return documents;
    }

    private static String name(Map<String, Object> resource) {
        return (String) map(resource, "metadata").get("name");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> parent, String key) {
        Object value = parent.get(key);
        assertThat(value).as(key).isInstanceOf(Map.class);
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Map<String, Object> parent, String key) {
        Object value = parent.get(key);
        assertThat(value).as(key).isInstanceOf(List.class);
        return (List<Map<String, Object>>) value;
    }

    private static boolean bool(Map<String, Object> parent, String key) {
        return Boolean.TRUE.equals(parent.get(key));
    }
}
