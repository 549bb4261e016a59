package dev.dispatcher.load.result;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** Renders results with Jackson: snake-case names, strings escaped, a record's components in declaration order. */
final class ResultJson {

    static final JsonMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .build();

    private ResultJson() {
    }

    /** {@code name}, then every non-null component of {@code result}. */
    static ObjectNode fields(BenchResult result) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("name", result.name());
        node.setAll((ObjectNode) MAPPER.valueToTree(result));
        return node;
    }

    /** {@code node} with {@code fields} (rendered by Jackson) inserted right after the field {@code after}. */
    static ObjectNode insertAfter(ObjectNode node, String after, Map<String, ?> fields) {
        if (!node.has(after)) {
            throw new IllegalArgumentException("no field " + after + " in " + node);
        }
        List<Map.Entry<String, JsonNode>> entries = new ArrayList<>(node.properties());
        ObjectNode ordered = MAPPER.createObjectNode();
        for (Map.Entry<String, JsonNode> entry : entries) {
            ordered.set(entry.getKey(), entry.getValue());
            if (entry.getKey().equals(after)) {
                fields.forEach((name, value) -> ordered.set(name, MAPPER.valueToTree(value)));
            }
        }
        return ordered;
    }

    static String write(ObjectNode node) {
        return MAPPER.writeValueAsString(node);
    }
}
