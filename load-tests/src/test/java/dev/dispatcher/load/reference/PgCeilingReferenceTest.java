package dev.dispatcher.load.reference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The reference ceiling the benchmarks run is the one users can run: {@link PgCeiling}'s statements are those of
 * {@code load-tests/reference/pg-ceiling.sql}, and that file is the project's shared reference, byte for byte, where
 * a copy of the shared reference sits beside the repository.
 */
class PgCeilingReferenceTest {

    private static final Path REFERENCE = Path.of("reference", "pg-ceiling.sql");

    /** Where the project's shared reference lives beside a checkout, when it does. */
    private static final Path SHARED = Path.of("..", "..", "shared", "bench", "pg-ceiling.sql");

    @Test
    void theHarnessRunsTheStatementsOfTheReferenceFile() throws IOException {
        String reference = normalised(Files.readString(REFERENCE));
        List<String> statements = List.of(PgCeiling.CREATE_TABLE, PgCeiling.CREATE_INDEX,
                PgCeiling.SEED.replace("generate_series(1, ?)", "generate_series(1, :n)"), PgCeiling.CREATE_FUNCTION);
        for (String statement : statements) {
            assertThat(reference).as("reference/pg-ceiling.sql holds the harness's statement")
                    .contains(normalised(statement));
        }
    }

    @Test
    void theReferenceFileIsTheSharedReference() throws IOException {
        assumeTrue(Files.isRegularFile(SHARED),
                "no shared reference beside this checkout (" + SHARED.toAbsolutePath().normalize() + "): nothing to compare");
        assertThat(Files.readString(REFERENCE)).as("reference/pg-ceiling.sql").isEqualTo(Files.readString(SHARED));
    }

    private static String normalised(String sql) {
        return sql.replaceAll("\\s+", " ").trim();
    }
}
