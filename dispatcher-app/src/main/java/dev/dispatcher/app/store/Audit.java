package dev.dispatcher.app.store;

import dev.dispatcher.sql.AuditSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Statement;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/** Writes one {@code dispatch_audit} row inside the caller's transaction, so a mutation and its audit commit together. */
final class Audit {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private Audit() {
    }

    /**
     * @param queue {@link AuditSql#QUEUE_OUTBOX} or {@link AuditSql#QUEUE_INBOX}
     */
    static Mono<Void> insert(Connection tx, String actor, AuditSql.Action action, String queue, String messageId,
            Map<String, Object> detail, Map<String, Object> before, Map<String, Object> after) {
        Statement s = tx.createStatement(AuditSql.INSERT).bind("$1", actor).bind("$2", action.sql())
                .bind("$3", queue);
        Binds.nullable(s, "$4", messageId);
        s.bind("$5", JSON.writeValueAsString(detail))
                .bind("$6", JSON.writeValueAsString(before))
                .bind("$7", JSON.writeValueAsString(after));
        return Flux.from(s.execute()).flatMap(r -> r.map(row -> 1)).then();
    }
}
