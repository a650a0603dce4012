package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.jdbc.internal.PostgresSql;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The $n rendering for other PostgreSQL clients: every placeholder names a parameter, and each is
 * cast; the caller is bound as bytes; the DDL such a client runs.
 */
class PostgresSqlTest {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$(\\d+)");

    @Test
    void everyPlaceholderIsNamedAndCast() {
        PostgresSql sql = PostgresSql.forTable("app.idempotency_keys");
        List<PostgresSql.Statement> all = List.of(sql.reserveFresh(), sql.reserve(), sql.atomicReserveFresh(),
                sql.atomicReserve(), sql.find(),
                sql.insertCompleted(), sql.complete(), sql.release(), sql.renew(), sql.purge(),
                sql.atomicSettings(true), sql.atomicLockTimeout(), sql.inFlightProbe());
        for (PostgresSql.Statement s : all) {
            assertThat(s.sql()).as(s.sql()).doesNotContainPattern("(?<!:):[a-z_]");
            Matcher m = PLACEHOLDER.matcher(s.sql());
            int highest = 0;
            while (m.find()) {
                highest = Math.max(highest, Integer.parseInt(m.group(1)));
                assertThat(s.sql().substring(Math.max(0, m.start() - 5), m.start()).toLowerCase()).as(s.sql()).endsWith("cast(");
            }
            assertThat(highest).as(s.sql()).isEqualTo(s.parameters().size());
        }
        assertThat(sql.reserve().sql()).contains("\"app\".\"idempotency_keys\"");
        assertThat(sql.find().parameters()).containsExactly("key", "tenant_id", "caller", "method", "path", "now");
        assertThat(sql.find().sql()).contains("\"caller\" = cast($3 as bytea)");
        assertThat(PostgresSql.callerBytes(new RecordKey("t", RecordKey.callerOf("alice"), "POST", "/", "k")))
                .hasSize(16).isEqualTo(HexFormat.of().parseHex(RecordKey.callerOf("alice")));
        assertThat(PostgresSql.callerBytes(new RecordKey("t", "POST", "/", "k"))).isEmpty();
    }

    /** What another client's createTableIfMissing asks, and the DDL it then runs. */
    @Test
    void theTableStateSaysWhetherTheTableAndItsCallerColumnExist() throws Exception {
        try (TestDatabase db = TestDatabase.postgres()) {
            PostgresSql sql = PostgresSql.forTable(db.name + ".idempotency_keys");
            assertThat(tableState(db, sql)).containsExactly(false, false);
            assertThat(String.join("\n", sql.ddl(false, false, null))).contains("fillfactor").contains("caller");
            for (String ddl : sql.ddl(true, true, null)) {
                db.execute(ddl); // V1 alone
            }
            assertThat(tableState(db, sql)).containsExactly(true, false);
            List<String> upgrade = sql.ddl(true, false, null);
            assertThat(String.join("\n", upgrade)).doesNotContain("fillfactor").contains("PRIMARY KEY");
            for (String ddl : upgrade) {
                db.execute(ddl);
            }
            assertThat(tableState(db, sql)).containsExactly(true, true);
        }
    }

    private static List<Boolean> tableState(TestDatabase db, PostgresSql sql) throws Exception {
        try (Connection c = DriverManager.getConnection(db.url(), db.server.user(), db.server.password());
             PreparedStatement ps = c.prepareStatement(sql.tableState().replace("$1", "?"))) {
            ps.setString(1, sql.renderedTable());
            ps.setString(2, sql.renderedTable());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return List.of(rs.getBoolean("present"), rs.getBoolean("caller"));
            }
        }
    }
}
