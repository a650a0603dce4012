package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.function.Supplier;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link JdbcStore#verifySchema()} and {@link JdbcStore.Builder#verifySchema(boolean)} on real databases. */
class SchemaVerificationTest {

    static Stream<Arguments> databases() {
        return Stream.of(
                Arguments.of("PostgreSQL", (Supplier<TestDatabase>) TestDatabase::postgres, SQLDialect.POSTGRES),
                Arguments.of("MariaDB", (Supplier<TestDatabase>) TestDatabase::mariadb, SQLDialect.MARIADB),
                Arguments.of("MySQL path on MariaDB", (Supplier<TestDatabase>) TestDatabase::mariadb, SQLDialect.MYSQL),
                Arguments.of("H2", (Supplier<TestDatabase>) TestDatabase::h2, SQLDialect.H2));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void aCompleteTablePasses(String label, Supplier<TestDatabase> database, SQLDialect dialect) {
        try (TestDatabase db = database.get()) {
            DataSource pool = db.pool("verify-ok", 1);
            createTable(pool, dialect);

            JdbcStore store = JdbcStore.builder(pool).dialect(dialect).verifySchema(true).build();

            assertThatCode(store::verifySchema).doesNotThrowAnyException();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void aMissingTableIsNamed(String label, Supplier<TestDatabase> database, SQLDialect dialect) {
        try (TestDatabase db = database.get()) {
            DataSource pool = db.pool("verify-table", 1);
            JdbcStore lenient = JdbcStore.builder(pool).dialect(dialect).tableName("payment_keys").build();

            assertThatThrownBy(lenient::verifySchema).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("table payment_keys does not exist");
            assertThatThrownBy(() -> JdbcStore.builder(pool).dialect(dialect).tableName("payment_keys")
                    .verifySchema(true).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("table payment_keys does not exist");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void droppedColumnsAreNamed(String label, Supplier<TestDatabase> database, SQLDialect dialect) {
        try (TestDatabase db = database.get()) {
            DataSource pool = db.pool("verify-column", 1);
            createTable(pool, dialect);
            JdbcStore store = JdbcStore.builder(pool).dialect(dialect).build();
            String q = dialect == SQLDialect.H2 ? "\"" : "";
            db.execute("ALTER TABLE " + q + "idempotency_keys" + q + " DROP COLUMN " + q + "owner_token" + q);

            assertThatThrownBy(store::verifySchema).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("table idempotency_keys has no column owner_token (");

            db.execute("ALTER TABLE " + q + "idempotency_keys" + q + " DROP COLUMN " + q + "format_version" + q);

            assertThatThrownBy(store::verifySchema).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("has no columns owner_token, format_version (");
            assertThat(store.tableName()).isEqualTo("idempotency_keys");
        }
    }

    /** The MySQL path runs on MariaDB, whose table has MariaDB's collations (as in MySqlPathStoreContractTest). */
    private static void createTable(DataSource pool, SQLDialect dialect) {
        JdbcStore.builder(pool).dialect(dialect == SQLDialect.MYSQL ? SQLDialect.MARIADB : dialect).build()
                .createTableIfMissing();
    }
}
