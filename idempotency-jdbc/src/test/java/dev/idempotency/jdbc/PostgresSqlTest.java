package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.sql.Ddl;
import dev.idempotency.sql.Placeholders;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlDialect;
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
        SqlCatalog sql = SqlCatalog.of(SqlDialect.POSTGRES, "app.idempotency_keys");
        List<Placeholders.Sql> all = List.of("reserveFresh", "reserve", "atomicReserveFresh", "atomicReserve", "find",
                "insertCompleted", "complete", "release", "renew", "purge", "atomicSettingsWithTenant",
                "atomicLockTimeout", "inFlightProbe").stream().map(sql::numberedCasts).toList();
        for (Placeholders.Sql s : all) {
            assertThat(s.text()).as(s.text()).doesNotContainPattern("(?<!:):[a-z_]");
            Matcher m = PLACEHOLDER.matcher(s.text());
            int highest = 0;
            while (m.find()) {
                highest = Math.max(highest, Integer.parseInt(m.group(1)));
                assertThat(s.text().substring(Math.max(0, m.start() - 5), m.start()).toLowerCase()).as(s.text()).endsWith("cast(");
            }
            assertThat(highest).as(s.text()).isEqualTo(s.parameters().size());
        }
        assertThat(sql.numberedCasts("reserve").text()).contains("\"app\".\"idempotency_keys\"");
        assertThat(sql.numberedCasts("find").parameters()).containsExactly("key", "tenant_id", "caller", "method", "path", "now");
        assertThat(sql.numberedCasts("find").text()).contains("\"caller\" = cast($3 as bytea)");
        assertThat(Records.callerBytes(new RecordKey("t", RecordKey.callerOf("alice"), "POST", "/", "k")))
                .hasSize(16).isEqualTo(HexFormat.of().parseHex(RecordKey.callerOf("alice")));
        assertThat(Records.callerBytes(new RecordKey("t", "POST", "/", "k"))).isEmpty();
    }

    /** What another client's createTableIfMissing asks, and the DDL it then runs. */
    @Test
    void theTableStateSaysWhetherTheTableAndItsCallerColumnExist() throws Exception {
        try (TestDatabase db = TestDatabase.postgres()) {
            SqlCatalog sql = SqlCatalog.of(SqlDialect.POSTGRES, db.name + ".idempotency_keys");
            assertThat(tableState(db, sql)).containsExactly(false, false);
            assertThat(String.join("\n", ddl(sql, false, false))).contains("fillfactor").contains("caller");
            for (String ddl : ddl(sql, true, true)) {
                db.execute(ddl); // V1 alone
            }
            assertThat(tableState(db, sql)).containsExactly(true, false);
            List<String> upgrade = ddl(sql, true, false);
            assertThat(String.join("\n", upgrade)).doesNotContain("fillfactor").contains("PRIMARY KEY");
            for (String ddl : upgrade) {
                db.execute(ddl);
            }
            assertThat(tableState(db, sql)).containsExactly(true, true);
        }
    }

    private static List<String> ddl(SqlCatalog sql, boolean present, boolean hasCaller) {
        return Ddl.statements(SqlDialect.POSTGRES, Ddl.scripts(SqlDialect.POSTGRES, present, hasCaller, false), sql.table(),
                Ddl.DEFAULT_TENANT_SETTING);
    }

    private static List<Boolean> tableState(TestDatabase db, SqlCatalog sql) throws Exception {
        try (Connection c = DriverManager.getConnection(db.url(), db.server.user(), db.server.password());
             PreparedStatement ps = c.prepareStatement(sql.questionMarks("tableState").text())) {
            ps.setString(1, sql.table().quoted(SqlDialect.POSTGRES));
            ps.setString(2, sql.table().quoted(SqlDialect.POSTGRES));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return List.of(rs.getBoolean("present"), rs.getBoolean("caller"));
            }
        }
    }
}
