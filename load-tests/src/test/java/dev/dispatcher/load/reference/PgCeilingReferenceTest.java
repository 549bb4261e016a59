package dev.dispatcher.load.reference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The reference ceiling the benchmarks run is the one users run: {@link PgCeiling} runs the statements of
 * {@code load-tests/reference/pg-ceiling.sql} in order, and that file is the project's shared reference, byte for
 * byte, where a copy of the shared reference sits beside the repository.
 */
class PgCeilingReferenceTest {

    private static final Path REFERENCE = Path.of("reference", "pg-ceiling.sql");

    /** Where the project's shared reference lives beside a checkout, when it does. */
    private static final Path SHARED = Path.of("..", "..", "shared", "bench", "pg-ceiling.sql");

    @Test
    void theHarnessRunsEveryStatementOfTheReferenceFileInOrder() throws IOException {
        List<String> statements = PgCeiling.statements();

        assertThat(statements).extracting(statement -> statement.split("\\s+")[0] + " " + statement.split("\\s+")[1])
                .containsExactly("DROP TABLE", "CREATE TABLE", "CREATE INDEX", "INSERT INTO", "VACUUM ANALYZE",
                        "CREATE OR");
        assertThat(statements.get(3)).as("the seed, its count bound by the harness").contains("generate_series(1, :n)");
        assertThat(statements.get(5)).as("the claim-and-complete function, whole")
                .startsWith("CREATE OR REPLACE FUNCTION ceiling_claim_complete").endsWith("END $$");
        String reference = Files.readString(REFERENCE);
        for (String statement : statements) {
            assertThat(reference).as("the file on the class path is reference/pg-ceiling.sql").contains(statement);
        }
    }

    @Test
    void theReferenceFileIsTheSharedReference() throws IOException {
        assumeTrue(Files.isRegularFile(SHARED),
                "no shared reference beside this checkout (" + SHARED.toAbsolutePath().normalize() + "): nothing to compare");
        assertThat(Files.readString(REFERENCE)).as("reference/pg-ceiling.sql").isEqualTo(Files.readString(SHARED));
    }
}
