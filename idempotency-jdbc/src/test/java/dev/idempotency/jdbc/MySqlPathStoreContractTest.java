package dev.idempotency.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.store.Store;
import dev.idempotency.testkit.StoreContractTest;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The Store contract through the MySQL code path — the conditional upsert without
 * {@code RETURNING}, then a primary-key read — run on MariaDB, which shares its semantics. (The
 * SQL is rendered for MariaDB: MySQL's row-alias syntax is jOOQ's to get right.)
 */
class MySqlPathStoreContractTest extends StoreContractTest {

    private static TestDatabase db;
    private static HikariDataSource first;
    private static HikariDataSource second;

    @BeforeAll
    static void createDatabase() {
        db = TestDatabase.mariadb();
        first = db.pool("mysql-path-a", 8);
        second = db.pool("mysql-path-b", 8);
        JdbcStore.create(first).createTableIfMissing();
    }

    @AfterAll
    static void dropDatabase() {
        db.close();
    }

    static JdbcStore readBackStore(HikariDataSource pool) {
        return JdbcStore.builder(pool).dialect(SQLDialect.MARIADB)
                .statements((table, dialect) -> new MySqlStatements(table, dialect, false, false))
                .build();
    }

    @Override
    protected Store createStore() {
        return readBackStore(first);
    }

    @Override
    protected Store secondInstance() {
        return readBackStore(second);
    }
}
