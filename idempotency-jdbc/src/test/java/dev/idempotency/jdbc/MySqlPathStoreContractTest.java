package dev.idempotency.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import org.jooq.SQLDialect;

/**
 * The Store contract through the MySQL code path — the conditional upsert without
 * {@code RETURNING}, then a primary-key read — run on MariaDB, which shares its semantics. (The
 * SQL is rendered for MariaDB: MySQL's row-alias syntax is jOOQ's to get right.)
 */
class MySqlPathStoreContractTest extends AbstractJdbcStoreContractTest {

    static JdbcStore readBackStore(HikariDataSource pool) {
        return JdbcStore.builder(pool).dialect(SQLDialect.MARIADB).readBack().build();
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
