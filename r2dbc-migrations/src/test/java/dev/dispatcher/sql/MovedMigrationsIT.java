package dev.dispatcher.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The migrations moved from Flyway's default {@code db/migration} to {@link Migrations#LOCATION}: databases migrated
 * before the move keep working, and nothing is left where an application's Flyway would look by default.
 */
class MovedMigrationsIT {

    /**
     * Version -> checksum, description, as Flyway 11.14.1 computed them for the files under {@code db/migration}
     * before the move (its {@code ChecksumCalculator} on the committed files); a changed file fails validation of
     * every existing database, so these never change.
     */
    private static final Map<String, String> RECORDED_BEFORE_THE_MOVE = Map.of(
            "1", "1383791831 outbox inbox audit control",
            "2", "634433582 coalesced outbox notify");

    private static final String[] FILES = {"V1__outbox_inbox_audit_control.sql", "V2__coalesced_outbox_notify.sql"};

    private final PostgresServer postgres = TestServers.postgres();

    private Flyway flyway(String schema, String location) {
        return Flyway.configure()
                .dataSource(postgres.jdbcUrl(), postgres.username(), postgres.password())
                .schemas(schema)
                .defaultSchema(schema)
                .table(Migrations.HISTORY_TABLE)
                .locations(location)
                .placeholderReplacement(false)
                .load();
    }

    private static Map<String, String> versions(MigrationInfo[] migrations) {
        Map<String, String> versions = new TreeMap<>();
        // the schema-creation marker Flyway records has no version
        Arrays.stream(migrations).filter(m -> m.getVersion() != null).forEach(m ->
                versions.put(m.getVersion().getVersion(), m.getChecksum() + " " + m.getDescription()));
        return versions;
    }

    @Test
    void movedFilesKeepTheVersionsAndChecksumsRecordedBeforeTheMove() {
        String schema = "moved_" + Long.toHexString(System.nanoTime());

        assertThat(versions(flyway(schema, Migrations.LOCATION).info().all()))
                .containsAllEntriesOf(RECORDED_BEFORE_THE_MOVE);
    }

    @Test
    void aDatabaseMigratedFromTheOldLocationValidatesAndNeedsNothingMore(@TempDir Path root) throws IOException {
        // the files as the old jar shipped them, under db/migration
        Path old = Files.createDirectories(root.resolve("db/migration"));
        for (String file : FILES) {
            try (InputStream in = getClass().getClassLoader()
                    .getResourceAsStream(Migrations.LOCATION.substring("classpath:".length()) + "/" + file)) {
                Files.copy(in, old.resolve(file));
            }
        }
        String schema = "old_location_" + Long.toHexString(System.nanoTime());
        assertThat(flyway(schema, "filesystem:" + old).migrate().migrationsExecuted).isEqualTo(2);

        Flyway moved = flyway(schema, Migrations.LOCATION);
        // what was applied validates against the moved files; migrations added since are merely pending
        assertThat(Flyway.configure().configuration(moved.getConfiguration()).ignoreMigrationPatterns("*:pending")
                .load().validateWithResult().validationSuccessful).isTrue();
        // only the migrations added since (V3 on) run; the moved ones are recognised as applied
        int added = (int) Arrays.stream(moved.info().all()).filter(m -> m.getVersion() != null)
                .filter(m -> !RECORDED_BEFORE_THE_MOVE.containsKey(m.getVersion().getVersion())).count();
        assertThat(moved.migrate().migrationsExecuted).isEqualTo(added);
        assertThat(versions(moved.info().applied())).containsAllEntriesOf(RECORDED_BEFORE_THE_MOVE);
    }

    @Test
    void nothingIsLeftUnderFlywaysDefaultLocation() {
        assertThat(getClass().getClassLoader().getResource("db/migration")).isNull();
        assertThat(getClass().getClassLoader().getResource("db/dispatcher/migration/" + FILES[0])).isNotNull();
    }
}
