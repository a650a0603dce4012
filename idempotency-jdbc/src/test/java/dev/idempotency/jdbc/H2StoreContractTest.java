package dev.idempotency.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.store.Store;
import dev.idempotency.testkit.StoreContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The Store contract on H2 in memory (MERGE), two pools on the one database. */
class H2StoreContractTest extends StoreContractTest {

    private static TestDatabase db;
    private static HikariDataSource first;
    private static HikariDataSource second;

    @BeforeAll
    static void createSchema() {
        db = TestDatabase.h2();
        first = db.pool("contract-a", 8);
        second = db.pool("contract-b", 8);
        JdbcStore.create(first).createTableIfMissing();
    }

    @AfterAll
    static void dropSchema() {
        db.close();
    }

    @Override
    protected Store createStore() {
        return JdbcStore.create(first);
    }

    @Override
    protected Store secondInstance() {
        return JdbcStore.create(second);
    }
}
