package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.RecordKey;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The $n rendering for other PostgreSQL clients: every placeholder names a parameter, and each is cast. */
class PostgresSqlTest {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$(\\d+)");

    @Test
    void everyPlaceholderIsNamedAndCast() {
        PostgresSql sql = PostgresSql.forTable("app.idempotency_keys");
        List<PostgresSql.Statement> all = List.of(sql.reserve(), sql.atomicReserve(), sql.find(),
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
}
