package dev.dispatcher.app.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.domain.MessageStatus;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * An operator read that runs past {@code dispatcher.operator.read-timeout} is cancelled by PostgreSQL and fails as
 * {@link OperatorReadTimeout}, and its connection goes back to the pool, usable: the read is made to last by a second
 * connection holding the table's {@code ACCESS EXCLUSIVE} lock (the one lock a plain read waits for; a statement
 * timeout counts the wait), so the cut does not depend on the machine's speed.
 */
class OperatorReadTimeoutIT {

    private static final Duration READ_TIMEOUT = Duration.ofMillis(300);

    private final StoreTestDb db = new StoreTestDb("operator_timeout");
    private final OperatorStore outbox = OperatorStore.r2dbc(db.pool, db.store(), READ_TIMEOUT);
    private final InboxOperatorStore inbox = InboxOperatorStore.r2dbc(db.pool, READ_TIMEOUT);

    @AfterEach
    void close() {
        db.close();
    }

    @Test
    void aListingThatRunsPastTheReadTimeoutIsCutAndItsConnectionGivenBack() throws SQLException {
        db.insert("k", Duration.ZERO);
        try (Connection locker = db.jdbc(); Statement s = locker.createStatement()) {
            locker.setAutoCommit(false);
            s.execute("LOCK TABLE outbox_message, inbox_message IN ACCESS EXCLUSIVE MODE");

            StepVerifier.create(outbox.list(MessageStatus.PENDING, "store-topic", null, 0, 50))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(OperatorReadTimeout.class)
                            .hasMessageContaining("ran longer than PT0.3S"))
                    .verify(Duration.ofSeconds(10));
            StepVerifier.create(inbox.deadLetters("orders", 0, 50))
                    .expectError(OperatorReadTimeout.class)
                    .verify(Duration.ofSeconds(10));
            locker.rollback();
        }

        assertThat(db.pool.getMetrics().orElseThrow().acquiredSize()).as("no connection held after the cut").isZero();
        StepVerifier.create(outbox.list(MessageStatus.PENDING, "store-topic", null, 0, 50))
                .assertNext(page -> assertThat(page.items()).hasSize(1))
                .verifyComplete();
        StepVerifier.create(inbox.deadLetters("orders", 0, 50))
                .assertNext(page -> assertThat(page.items()).isEmpty())
                .verifyComplete();
    }

    @Test
    void aListingWithinTheReadTimeoutLeavesTheSessionsOwnTimeoutAsItWas() throws SQLException {
        db.insert("k", Duration.ZERO);

        StepVerifier.create(outbox.list(null, null, null, 0, 50))
                .assertNext(page -> assertThat(page.items()).hasSize(1))
                .verifyComplete();

        // SET LOCAL ended with the read's transaction: the pool's one connection is back at the server's default
        assertThat(db.pool.getMetrics().orElseThrow().allocatedSize()).isEqualTo(1);
        List<String> timeouts = Flux.usingWhen(db.pool.create(),
                        c -> Flux.from(c.createStatement("SHOW statement_timeout").execute())
                                .flatMap(r -> r.map(row -> row.get(0, String.class))),
                        c -> c.close())
                .collectList().block(Duration.ofSeconds(10));
        assertThat(timeouts).containsExactly("0");
    }
}
