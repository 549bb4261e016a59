package dev.dispatcher.app.config;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.util.unit.DataSize;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The configuration reference, from the code alone: names, types and descriptions (the records' {@code @param}
 * javadoc) as spring-boot-configuration-processor wrote them at compile time into
 * {@code META-INF/spring-configuration-metadata.json}, list elements from the source metadata it writes for types
 * marked {@code @ConfigurationPropertiesSource} ({@code META-INF/spring/configuration-metadata/<type>.json}), and
 * each default from the {@code DEFAULT_<NAME>} constant of the class that declares the property (the processor cannot
 * see a default applied in a constructor). Renders {@code docs/configuration.md}'s generated part and the
 * {@code defaultValue}s of {@code META-INF/additional-spring-configuration-metadata.json}, which the processor merges
 * into the metadata IDEs read.
 */
final class ConfigurationReference {

    static final String PREFIX = DispatcherProperties.PREFIX;
    static final String METADATA = "META-INF/spring-configuration-metadata.json";
    static final String SOURCE_METADATA = "META-INF/spring/configuration-metadata/%s.json";
    static final String LIST_ELEMENT = "[i]";
    static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
    private static final Pattern LIST_OF = Pattern.compile("java\\.util\\.List<(.+)>");
    private static final Pattern INLINE_TAG = Pattern.compile("\\{@(code|link|linkplain|value) ");

    /**
     * One property.
     *
     * @param name the full name; a list element's properties read {@code dispatcher.inbox.consumers[i].name}
     * @param type the Java type as the metadata names it
     * @param sourceType the class that declares it
     * @param description the javadoc of its record component, or empty
     * @param defaultValue its {@code DEFAULT_*} constant, or null when it has none (no default, or one derived from
     *     other values that the description gives)
     * @param list the list property whose element this is a property of, or null
     */
    record Property(String name, String type, String sourceType, String description, Object defaultValue,
            String list) {
    }

    private final List<Property> properties;
    private final Map<String, String> listDescriptions;

    private ConfigurationReference(List<Property> properties, Map<String, String> listDescriptions) {
        this.properties = List.copyOf(properties);
        this.listDescriptions = listDescriptions;
    }

    /** The reference of the metadata under {@code classes} (a module's {@code target/classes}). */
    static ConfigurationReference of(Path classes) throws IOException {
        List<Property> properties = new ArrayList<>();
        Map<String, String> lists = new LinkedHashMap<>();
        for (JsonNode item : read(classes.resolve(METADATA)).path("properties")) {
            String name = item.path("name").asString();
            String type = item.path("type").asString();
            Matcher list = LIST_OF.matcher(type);
            Path elementMetadata = list.matches()
                    ? classes.resolve(SOURCE_METADATA.formatted(list.group(1))) : null;
            if (elementMetadata != null && Files.exists(elementMetadata)) {
                lists.put(name, item.path("description").asString(""));
                for (JsonNode element : read(elementMetadata).path("properties")) {
                    properties.add(property(name + LIST_ELEMENT + "." + element.path("name").asString(), element,
                            name));
                }
            } else {
                properties.add(property(name, item, null));
            }
        }
        return new ConfigurationReference(properties, lists);
    }

    private static JsonNode read(Path file) throws IOException {
        return JSON.readTree(Files.readString(file));
    }

    private static Property property(String name, JsonNode item, String list) {
        String sourceType = item.path("sourceType").asString();
        return new Property(name, item.path("type").asString(), sourceType, item.path("description").asString(""),
                defaultOf(name, sourceType), list);
    }

    List<Property> properties() {
        return properties;
    }

    /** The class {@code sourceType} names ({@code Outer$Inner}). */
    static Class<?> type(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the metadata names " + name + ", which is not on the class path", e);
        }
    }

    /** The constant {@code DEFAULT_<LAST_SEGMENT>} of the declaring class, or null. */
    private static Object defaultOf(String name, String sourceType) {
        try {
            Field constant = type(sourceType).getField(defaultConstant(name));
            return Modifier.isStatic(constant.getModifiers()) ? constant.get(null) : null;
        } catch (NoSuchFieldException e) {
            return null;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code DEFAULT_BATCH_SIZE} for {@code dispatcher.relay.batch-size}. */
    private static String defaultConstant(String name) {
        return "DEFAULT_" + name.substring(name.lastIndexOf('.') + 1).toUpperCase(Locale.ROOT).replace('-', '_');
    }

    /**
     * Every public static {@code DEFAULT_*} constant of a class that declares a property, as
     * {@code Class.FIELD}: a constant that no property's name matches would be a default the reference leaves out.
     */
    List<String> defaultConstants() {
        return properties.stream().map(Property::sourceType).distinct().map(ConfigurationReference::type)
                .flatMap(type -> Arrays.stream(type.getFields())
                        .filter(f -> f.getDeclaringClass() == type && Modifier.isStatic(f.getModifiers())
                                && f.getName().startsWith("DEFAULT_"))
                        .map(f -> type.getName() + "." + f.getName()))
                .toList();
    }

    /** The same constants as {@link #defaultConstants()}, taken by the properties. */
    List<String> usedDefaultConstants() {
        return properties.stream().filter(p -> p.defaultValue() != null)
                .map(p -> p.sourceType() + "." + defaultConstant(p.name())).toList();
    }

    /**
     * {@code META-INF/additional-spring-configuration-metadata.json}: the default of every property that has one,
     * as the metadata writes values ({@code 30s}, {@code 64MB}, {@code per-key}). A list element's properties are
     * left out: the metadata format has no names for them.
     */
    String additionalMetadata() {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode items = root.putArray("properties");
        properties.stream().filter(p -> p.list() == null && p.defaultValue() != null)
                .sorted(Comparator.comparing(Property::name)).forEach(p -> {
                    ObjectNode item = items.addObject().put("name", p.name());
                    switch (p.defaultValue()) {
                        case Boolean b -> item.put("defaultValue", b);
                        case Integer i -> item.put("defaultValue", i);
                        case Long l -> item.put("defaultValue", l);
                        case Double d -> item.put("defaultValue", d);
                        default -> item.put("defaultValue", text(p.defaultValue()));
                    }
                });
        return JSON.writeValueAsString(root) + "\n";
    }

    /** A value as it is written in configuration. */
    static String text(Object value) {
        return switch (value) {
            case Duration d -> PropertyRules.format(d);
            case DataSize size -> dataSize(size);
            case Enum<?> e -> e.name().toLowerCase(Locale.ROOT).replace('_', '-');
            default -> String.valueOf(value);
        };
    }

    private static String dataSize(DataSize size) {
        long bytes = size.toBytes();
        String[] units = {"B", "KB", "MB", "GB", "TB"};
        int unit = 0;
        while (unit < units.length - 1 && bytes != 0 && bytes % 1024 == 0) {
            bytes /= 1024;
            unit++;
        }
        return bytes + units[unit];
    }

    /**
     * The generated part of {@code docs/configuration.md}: a table per block, in the order of
     * {@link DispatcherProperties}' components, each list's elements in a table of their own after their block.
     */
    String markdown() {
        Map<String, List<Property>> blocks = new LinkedHashMap<>();
        blocks.put(PREFIX, new ArrayList<>());
        for (RecordComponent component : DispatcherProperties.class.getRecordComponents()) {
            String name = PREFIX + "." + kebab(component.getName());
            // a block ({@code dispatcher.relay.*}), or a list of its own ({@code dispatcher.sources[i].*})
            if (properties.stream().anyMatch(p -> p.name().startsWith(name + ".")
                    || p.name().startsWith(name + LIST_ELEMENT + "."))) {
                blocks.put(name, new ArrayList<>());
                listDescriptions.keySet().stream().filter(list -> list.startsWith(name + ".") || list.equals(name))
                        .forEach(list -> blocks.put(list + LIST_ELEMENT, new ArrayList<>()));
            }
        }
        for (Property property : properties) {
            blocks.get(blockOf(property, blocks)).add(property);
        }
        StringBuilder page = new StringBuilder();
        blocks.forEach((block, members) -> {
            if (members.isEmpty()) {
                return;
            }
            page.append("\n### `").append(block).append(".*`\n\n");
            String list = block.endsWith(LIST_ELEMENT) ? block.substring(0, block.length() - LIST_ELEMENT.length())
                    : null;
            if (list != null) {
                String description = markdownText(listDescriptions.get(list));
                page.append(description.isEmpty() ? "" : Character.toUpperCase(description.charAt(0))
                        + description.substring(1) + ".\n\n");
            }
            page.append("| property | type | default | description |\n|---|---|---|---|\n");
            members.stream().sorted(Comparator.comparing(Property::name)).forEach(p -> page.append("| `")
                    .append(p.name()).append("` | ").append(typeOf(p.type())).append(" | ")
                    .append(p.defaultValue() == null ? "" : "`" + text(p.defaultValue()) + "`").append(" | ")
                    .append(markdownText(p.description())).append(" |\n"));
        });
        return page.append('\n').toString();
    }

    private static String blockOf(Property property, Map<String, List<Property>> blocks) {
        if (property.list() != null) {
            return property.list() + LIST_ELEMENT;
        }
        String[] segments = property.name().split("\\.");
        String group = segments.length > 2 ? segments[0] + "." + segments[1] : PREFIX;
        return blocks.containsKey(group) ? group : PREFIX;
    }

    static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /** A type as a reader of the configuration thinks of it; an enum as its values. */
    static String typeOf(String type) {
        return switch (type) {
            case "java.lang.String" -> "string";
            case "java.lang.Integer", "java.lang.Long", "int", "long" -> "integer";
            case "java.lang.Double", "double" -> "number";
            case "java.lang.Boolean", "boolean" -> "boolean";
            case "java.time.Duration" -> "duration";
            case "org.springframework.util.unit.DataSize" -> "data size";
            case "java.net.URI" -> "URI";
            case "java.util.List<java.lang.String>" -> "list of strings";
            default -> {
                Class<?> named = type(type);
                yield named.isEnum() ? String.join(" \\| ", Arrays.stream(named.getEnumConstants())
                        .map(e -> "`" + text(e) + "`").toList()) : named.getSimpleName();
            }
        };
    }

    /** Javadoc as Markdown in a table cell: {@code {@code x}} as code, {@code {@link X#y}} as {@code X.y}. */
    static String markdownText(String javadoc) {
        StringBuilder text = new StringBuilder();
        Matcher tag = INLINE_TAG.matcher(javadoc);
        int at = 0;
        while (tag.find(at)) {
            text.append(javadoc, at, tag.start());
            int depth = 1;
            int end = tag.end();
            for (; end < javadoc.length() && depth > 0; end++) {
                depth += javadoc.charAt(end) == '{' ? 1 : javadoc.charAt(end) == '}' ? -1 : 0;
            }
            String body = javadoc.substring(tag.end(), end - 1).strip();
            text.append(tag.group(1).equals("code") ? "`" + body + "`"
                    : body.replaceFirst("^#", "").replace('#', '.'));
            at = end;
        }
        return text.append(javadoc.substring(at)).toString().replace("|", "\\|");
    }
}
