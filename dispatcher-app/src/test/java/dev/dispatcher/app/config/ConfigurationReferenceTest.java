package dev.dispatcher.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.dispatcher.app.config.ConfigurationReference.Property;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * {@code docs/configuration.md} and the defaults in the configuration metadata are what the code says: a property
 * added, renamed or described anew, or a default changed, fails here until the page and
 * {@code additional-spring-configuration-metadata.json} are regenerated with {@value #REGENERATE_COMMAND}.
 */
class ConfigurationReferenceTest {

    static final String REGENERATE_COMMAND = "./mvnw -B -pl dispatcher-app -am test -Dtest=ConfigurationReferenceTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Ddispatcher.docs.regenerate=true";
    static final Path CLASSES = Path.of("target/classes");
    static final Path PAGE = Path.of("../docs/configuration.md");
    static final Path ADDITIONAL = Path.of("src/main/resources/META-INF/additional-spring-configuration-metadata.json");
    static final String BEGIN = "<!-- BEGIN GENERATED from the configuration metadata by ConfigurationReferenceTest:"
            + " edit the javadoc of the properties records and run " + REGENERATE_COMMAND + " -->\n";
    static final String END = "<!-- END GENERATED -->";
    private static final Pattern GENERATED = Pattern.compile(Pattern.quote(BEGIN) + "(.*)" + Pattern.quote(END),
            Pattern.DOTALL);
    private static final boolean REGENERATE = Boolean.getBoolean("dispatcher.docs.regenerate");

    private static ConfigurationReference reference;

    @BeforeAll
    static void readMetadata() throws IOException {
        reference = ConfigurationReference.of(CLASSES);
    }

    @Test
    void pageShowsEveryPropertyAsTheMetadataHasIt() throws IOException {
        String page = Files.readString(PAGE);
        Matcher generated = GENERATED.matcher(page);
        assertThat(generated.find()).as("%s holds the markers of its generated part:%n%s...%s", PAGE, BEGIN, END)
                .isTrue();
        String expected = reference.markdown();
        if (REGENERATE) {
            Files.writeString(PAGE, page.substring(0, generated.start(1)) + expected
                    + page.substring(generated.end(1)));
            return;
        }
        assertThat(generated.group(1)).as("%s differs from the configuration metadata: regenerate it with%n%s", PAGE,
                REGENERATE_COMMAND).isEqualTo(expected);
    }

    @Test
    void additionalMetadataHoldsTheDefaultOfEveryConstant() throws IOException {
        String expected = reference.additionalMetadata();
        if (REGENERATE) {
            Files.writeString(ADDITIONAL, expected);
            return;
        }
        assertThat(ConfigurationReference.JSON.readTree(Files.readString(ADDITIONAL)))
                .as("%s differs from the DEFAULT_* constants: regenerate it with%n%s", ADDITIONAL, REGENERATE_COMMAND)
                .isEqualTo(ConfigurationReference.JSON.readTree(expected));
    }

    @Test
    void compiledMetadataCarriesTheDefaults() throws IOException {
        if (REGENERATE) {
            return; // compiled before this run regenerated the additional metadata
        }
        JsonNode compiled = ConfigurationReference.JSON.readTree(
                Files.readString(CLASSES.resolve(ConfigurationReference.METADATA)));
        for (JsonNode item : ConfigurationReference.JSON.readTree(reference.additionalMetadata()).path("properties")) {
            JsonNode property = null;
            for (JsonNode candidate : compiled.path("properties")) {
                property = candidate.path("name").equals(item.path("name")) ? candidate : property;
            }
            assertThat(property).as("%s in the compiled metadata", item.path("name")).isNotNull();
            JsonNode actual = property.path("defaultValue");
            JsonNode expected = item.path("defaultValue");
            // the processor writes 20.0 as 20
            assertThat(actual.isNumber() ? (Object) actual.asDouble() : actual).as("the compiled default of %s (after"
                    + " regenerating, compile again: ./mvnw clean ...)", item.path("name"))
                    .isEqualTo(expected.isNumber() ? (Object) expected.asDouble() : expected);
        }
    }

    @Test
    void everyDefaultConstantNamesAProperty() {
        assertThat(reference.usedDefaultConstants())
                .as("a DEFAULT_* constant named after no property: rename it DEFAULT_<PROPERTY_NAME>")
                .containsExactlyInAnyOrderElementsOf(reference.defaultConstants());
    }

    @Test
    void documentedDefaultsAreTheValuesBindingGives() {
        // the least configuration that binds one of each list element; everything else is absent
        DispatcherProperties bound = new Binder(new MapConfigurationPropertySource(Map.of(
                "dispatcher.inbox.consumers[0].name", "orders",
                "dispatcher.inbox.consumers[0].topics[0]", "orders",
                "dispatcher.inbox.consumers[0].webhook.url", "http://localhost/orders")))
                .bind(DispatcherProperties.PREFIX, DispatcherProperties.class).get();
        List<Property> defaulted = reference.properties().stream().filter(p -> p.defaultValue() != null).toList();

        assertThat(defaulted).hasSizeGreaterThan(40);
        for (Property property : defaulted) {
            String path = property.name().substring(DispatcherProperties.PREFIX.length() + 1)
                    .replace(ConfigurationReference.LIST_ELEMENT, "[0]");
            assertThat(valueAt(bound, path)).as(property.name()).isEqualTo(property.defaultValue());
        }
    }

    @Test
    void listElementsHaveRowsOfTheirOwn() {
        assertThat(reference.properties()).extracting(Property::name).contains(
                "dispatcher.inbox.consumers[i].name", "dispatcher.inbox.consumers[i].webhook.url",
                "dispatcher.inbox.consumers[i].retry.max-attempts", "dispatcher.security.users[i].password",
                "dispatcher.security.tokens[i].topics")
                .doesNotContain("dispatcher.inbox.consumers", "dispatcher.security.users");
        assertThat(reference.markdown()).contains("### `dispatcher.inbox.consumers[i].*`",
                "| `dispatcher.inbox.consumers[i].batch-size` | integer | `100` | rows claimed per statement");
    }

    /** The value at {@code path} ({@code inbox.consumers[0].batch-size}) of records bound from configuration. */
    private static Object valueAt(Object root, String path) {
        Object value = root;
        for (String segment : path.split("\\.")) {
            int index = segment.endsWith("]") ? Integer.parseInt(segment.replaceAll(".*\\[(\\d+)]", "$1")) : -1;
            String name = index < 0 ? segment : segment.substring(0, segment.indexOf('['));
            value = component(value, name);
            if (index >= 0) {
                value = ((List<?>) value).get(index);
            }
        }
        return value;
    }

    private static Object component(Object record, String kebabName) {
        for (RecordComponent component : record.getClass().getRecordComponents()) {
            if (ConfigurationReference.kebab(component.getName()).equals(kebabName)) {
                try {
                    return component.getAccessor().invoke(record);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return fail("%s has no component %s", record.getClass().getName(), kebabName);
    }
}
