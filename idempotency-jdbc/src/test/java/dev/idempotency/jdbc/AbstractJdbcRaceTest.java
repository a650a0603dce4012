package dev.idempotency.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.store.Store;
import dev.idempotency.testkit.StoreRaceTest;

/** The test kit's exact-count races on one database, with two pools standing for two application instances. */
abstract class AbstractJdbcRaceTest extends StoreRaceTest {

    private TestDatabase db;

    abstract TestDatabase openDatabase();

    JdbcStore store(HikariDataSource pool) {
        return JdbcStore.create(pool);
    }

    @Override
    protected Store firstInstance() {
        db = openDatabase();
        JdbcStore first = store(db.pool("race-a", 8));
        first.createTableIfMissing();
        return first;
    }

    @Override
    protected Store secondInstance() {
        return store(db.pool("race-b", 8));
    }

    @Override
    protected void closeInstances() {
        db.close();
    }
}
