package dev.dispatcher.app.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dispatcher.app.store.DatabaseFailures.Kind;
import io.r2dbc.spi.R2dbcBadGrammarException;
import io.r2dbc.spi.R2dbcDataIntegrityViolationException;
import io.r2dbc.spi.R2dbcNonTransientResourceException;
import io.r2dbc.spi.R2dbcRollbackException;
import io.r2dbc.spi.R2dbcTimeoutException;
import io.r2dbc.spi.R2dbcTransientResourceException;
import java.io.IOException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** One rule for database errors, by SQLSTATE class: what every retry and every handler decision relies on. */
class DatabaseFailuresTest {

    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({
            "08006, TRANSIENT", "08003, TRANSIENT", "40001, TRANSIENT", "40P01, TRANSIENT", "57P01, TRANSIENT",
            "57P02, TRANSIENT", "57P03, TRANSIENT", "53100, TRANSIENT", "53300, TRANSIENT", "25006, TRANSIENT",
            "57014, TIMEOUT", "55P03, TIMEOUT",
            "23505, PERMANENT", "23503, PERMANENT", "23514, PERMANENT", "42601, PERMANENT", "42P01, PERMANENT",
            "22001, PERMANENT", "XX000, PERMANENT"})
    void sqlStateDecides(String state, Kind kind) {
        assertThat(DatabaseFailures.classify(new R2dbcNonTransientResourceException("x", state))).isEqualTo(kind);
    }

    @Test
    void integrityViolationsArePermanentWhateverTheExceptionClass() {
        assertThat(DatabaseFailures.isRetryable(new R2dbcDataIntegrityViolationException("dup", "23505"))).isFalse();
        assertThat(DatabaseFailures.isRetryable(new R2dbcBadGrammarException("syntax", "42601"))).isFalse();
        assertThat(DatabaseFailures.isRetryable(new R2dbcRollbackException("deadlock", "40P01"))).isTrue();
        assertThat(DatabaseFailures.classify(new R2dbcTimeoutException("cancelled", "57014"))).isEqualTo(Kind.TIMEOUT);
    }

    @Test
    void aLostConnectionWithoutSqlStateIsTransient() {
        assertThat(DatabaseFailures.classify(new R2dbcNonTransientResourceException("Connection closed")))
                .isEqualTo(Kind.TRANSIENT);
        assertThat(DatabaseFailures.classify(new R2dbcTransientResourceException("busy"))).isEqualTo(Kind.TRANSIENT);
        assertThat(DatabaseFailures.classify(new IOException("reset by peer"))).isEqualTo(Kind.TRANSIENT);
        assertThat(DatabaseFailures.classify(new TimeoutException("acquire"))).isEqualTo(Kind.TRANSIENT);
        assertThat(DatabaseFailures.classify(new IllegalStateException("a bug"))).isEqualTo(Kind.PERMANENT);
    }

    @ParameterizedTest(name = "{0} replaces the connection: {1}")
    @CsvSource({"25006, true", "08006, true", "57P01, true", "40001, false", "57014, false", "23505, false",
            "25P02, false"})
    void aReadOnlyOrLostConnectionIsReplacedOthersAreKept(String state, boolean replaced) {
        assertThat(DatabaseFailures.replacesConnection(new R2dbcNonTransientResourceException("x", state)))
                .isEqualTo(replaced);
        assertThat(DatabaseFailures.replacesConnection(new IllegalStateException("wrapped",
                new R2dbcNonTransientResourceException("x", state)))).as("found through a wrapper").isEqualTo(replaced);
        assertThat(DatabaseFailures.readOnly(new R2dbcNonTransientResourceException("x", state)))
                .isEqualTo(state.equals("25006"));
    }

    @Test
    void errorsAreRethrownNotClassified() {
        assertThatThrownBy(() -> DatabaseFailures.classify(new OutOfMemoryError("oom")))
                .isInstanceOf(OutOfMemoryError.class);
    }
}
