package dev.dispatcher.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dispatcher.app.store.SessionSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the start-up check behind a transaction pooler accepts, and what {@code dispatcher.database.*} refuses. */
class PoolerSessionCheckTest {

    private static SessionSettings.Session session(String searchPath, String user) {
        return new SessionSettings.Session(searchPath, "auto", user, "shop", Map.of());
    }

    @Test
    void theSchemaMustLeadTheSearchPath() {
        assertThat(PoolerSessionCheck.problem(session("dispatcher", "app"), "dispatcher")).isNull();
        assertThat(PoolerSessionCheck.problem(session("\"dispatcher\", public", "app"), "dispatcher")).isNull();
        assertThat(PoolerSessionCheck.problem(session("\"$user\", public", "dispatcher"), "dispatcher")).isNull();
        assertThat(PoolerSessionCheck.problem(session("public, dispatcher", "app"), "dispatcher"))
                .contains("search_path 'public, dispatcher'")
                .contains("ALTER ROLE app IN DATABASE shop SET search_path = dispatcher");
        assertThat(PoolerSessionCheck.problem(session("\"$user\", public", "app"), "dispatcher"))
                .startsWith("dispatcher.database.pooler=transaction: ");
    }

    @Test
    void durationsCompareAcrossSpringAndPostgresSpellings() {
        assertThat(PoolerSessionCheck.sameDuration("30s", "30s")).isTrue();
        assertThat(PoolerSessionCheck.sameDuration("PT5S", "5s")).isTrue();
        assertThat(PoolerSessionCheck.sameDuration("1500ms", "1500ms")).isTrue();
        assertThat(PoolerSessionCheck.sameDuration("2m", "2min")).isTrue();
        assertThat(PoolerSessionCheck.sameDuration("30s", "0")).isFalse();
        assertThat(PoolerSessionCheck.sameDuration("30s", null)).isFalse();
        assertThat(PoolerSessionCheck.postgresDuration("0")).isEqualTo(Duration.ZERO);
        assertThat(PoolerSessionCheck.postgresDuration("1h")).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void aListenUrlMustBeAnR2dbcUrl() {
        assertThatThrownBy(() -> new DatabaseProperties(DatabaseProperties.Pooler.TRANSACTION,
                "postgresql://user:secret@db:5432/shop"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("dispatcher.database.listen-url must be an R2DBC URL")
                .hasMessageNotContaining("secret");
        assertThat(new DatabaseProperties(null, " ").listenUrl()).isNull();
        assertThat(DatabaseProperties.defaults().pooler()).isEqualTo(DatabaseProperties.Pooler.NONE);
    }
}
