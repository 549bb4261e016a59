package dev.dispatcher.app.store;

import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/** The {@code headers jsonb} column as a map of strings; non-string JSON values keep their JSON text. */
public final class StoredHeaders {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    static {
        // Jackson builds and caches its deserializers under a lock on first use; do it at class initialisation,
        // not on an event-loop thread under the first concurrent claims.
        JSON.readTree("{\"warm\":\"up\"}");
        JSON.writeValueAsString(Map.of("warm", "up"));
    }

    private StoredHeaders() {
    }

    /** Parses the column's JSON text; null or {@code {}} gives an empty map. */
    public static Map<String, String> parse(String json) {
        if (json == null || json.equals("{}")) {
            return Map.of();
        }
        Map<String, String> headers = new LinkedHashMap<>();
        JSON.readTree(json).properties().forEach(e ->
                headers.put(e.getKey(), e.getValue().isString() ? e.getValue().asString() : e.getValue().toString()));
        return headers;
    }

    /** JSON text for the column. */
    public static String format(Map<String, String> headers) {
        return headers.isEmpty() ? "{}" : JSON.writeValueAsString(headers);
    }
}
