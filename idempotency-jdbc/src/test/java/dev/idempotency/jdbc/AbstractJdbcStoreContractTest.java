package dev.idempotency.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.store.Store;
import dev.idempotency.testkit.StoreContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The core Store contract on one database, in a schema or database of its own, with two pools
 * standing for two application instances.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcStoreContractTest extends StoreContractTest {

    private TestDatabase db;
    private HikariDataSource first;
    private HikariDataSource second;

    abstract TestDatabase openDatabase();

    JdbcStore store(HikariDataSource pool) {
        return JdbcStore.create(pool);
    }

    @BeforeAll
    void createTable() {
        db = openDatabase();
        first = db.pool("contract-a", 8);
        second = db.pool("contract-b", 8);
        store(first).createTableIfMissing();
    }

    @AfterAll
    void dropSchema() {
        db.close();
    }

    @Override
    protected Store createStore() {
        return store(first);
    }

    @Override
    protected Store secondInstance() {
        return store(second);
    }
}
