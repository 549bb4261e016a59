package dev.dispatcher.sql;

import dev.dispatcher.testkit.TestServers;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Schemas migrated on the shared embedded PostgreSQL for this module's ITs, and what they read back. */
final class MigratedSchemas {

    private MigratedSchemas() {
    }

    /** A connection whose search path is a new migrated schema named after {@code prefix}. */
    static Connection open(String prefix) throws SQLException {
        var postgres = TestServers.postgres();
        return postgres.openConnection(postgres.createSchema(prefix));
    }

    /** The {@code seq} column of every row of {@code rows}, in ascending order. */
    static List<Long> seqs(ResultSet rows) throws SQLException {
        List<Long> seqs = new ArrayList<>();
        while (rows.next()) {
            seqs.add(rows.getLong("seq"));
        }
        seqs.sort(Long::compare);
        return seqs;
    }
}
