package dev.dispatcher.app.store;

import dev.dispatcher.domain.MessageStatus;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/** A leased row as an operator mutation sees it: what {@link OptimisticMutation} checks and audits. */
interface OperatorRow {

    long version();

    MessageStatus status();

    /** The state an audit row records (no payload). */
    Map<String, Object> auditState();

    /**
     * Why an operator may not move this row to {@code target} although its status allows it (a phrase that follows
     * the message's name), or null. None by default.
     */
    default String refusal(MessageStatus target) {
        return null;
    }

    /** The audit state of a leased row, the same fields as {@code AuditSql.ROW_STATE} writes. */
    static Map<String, Object> state(MessageStatus status, long version, int attempts, Instant visibleAfter,
            String leaseOwner, UUID leaseToken, Instant leaseUntil, String lastError) {
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("status", status.name());
        state.put("version", version);
        state.put("attempts", attempts);
        state.put("visible_after", text(visibleAfter));
        state.put("lease_owner", leaseOwner);
        state.put("lease_token", leaseToken == null ? null : leaseToken.toString());
        state.put("lease_until", text(leaseUntil));
        state.put("last_error", lastError);
        return state;
    }

    private static String text(Instant instant) {
        return instant == null ? null : instant.toString();
    }
}
