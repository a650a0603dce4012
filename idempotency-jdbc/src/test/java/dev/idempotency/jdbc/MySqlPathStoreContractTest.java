package dev.idempotency.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.jdbc.internal.MySqlStatements;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlDialect;
import org.jooq.SQLDialect;

/**
 * The Store contract through the MySQL code path — the conditional upsert without
 * {@code RETURNING}, then a primary-key read — run on MariaDB, which shares its semantics. (The
 * SQL is rendered for MariaDB: MySQL's row-alias syntax is jOOQ's to get right.)
 */
class MySqlPathStoreContractTest extends AbstractJdbcStoreContractTest {

    static JdbcStore readBackStore(HikariDataSource pool) {
        return JdbcStore.builder(pool).dialect(SQLDialect.MARIADB)
                .statements(table -> new MySqlStatements(SqlCatalog.of(SqlDialect.MARIADB, table), false))
                .build();
    }

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.mariadb();
    }

    @Override
    JdbcStore store(HikariDataSource pool) {
        return readBackStore(pool);
    }
}
