package dev.idempotency.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlaceholdersTest {

    private static final String SQL = "select x from t where key = :key and caller = :caller and at > :now"
            + " and lease > :now and objid = CAST(:body_lock AS int4)::oid and label = 'a:b' limit :limit";

    @Test
    void questionMarksOnePerOccurrenceInOrder() {
        Placeholders.Sql sql = Placeholders.questionMarks(SQL);
        assertThat(sql.text()).isEqualTo("select x from t where key = ? and caller = ? and at > ? and lease > ?"
                + " and objid = CAST(? AS int4)::oid and label = 'a:b' limit ?");
        assertThat(sql.parameters()).containsExactly("key", "caller", "now", "now", "body_lock", "limit");
        assertThat(sql.types()).containsExactly(String.class, byte[].class, Instant.class, Instant.class,
                Integer.class, Integer.class);
    }

    @Test
    void numberedCastsOneIndexPerNameEachCastToItsType() {
        Placeholders.Sql sql = Placeholders.numberedCasts(SQL);
        assertThat(sql.text()).isEqualTo("select x from t where key = cast($1 as text) and caller = cast($2 as bytea)"
                + " and at > cast($3 as timestamptz) and lease > cast($3 as timestamptz)"
                + " and objid = CAST(cast($4 as int4) AS int4)::oid and label = 'a:b' limit cast($5 as int4)");
        assertThat(sql.parameters()).containsExactly("key", "caller", "now", "body_lock", "limit");
        assertThat(sql.types()).isEqualTo(List.of(String.class, byte[].class, Instant.class, Integer.class,
                Integer.class));
    }

    @Test
    void shortsAreInt2() {
        assertThat(Placeholders.numberedCasts("set s = :response_status, v = :format_version").text())
                .isEqualTo("set s = cast($1 as int2), v = cast($2 as int2)");
    }
}
