package dev.idempotency.redis;

import dev.idempotency.core.store.Store;
import dev.idempotency.testkit.StoreContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The Store contract on standalone Redis: the blocking face, two clients for two instances. */
class RedisStoreContractTest extends StoreContractTest {

    private static TestRedis redis;

    @BeforeAll
    static void connect() {
        redis = TestRedis.standalone("contract");
    }

    @AfterAll
    static void deleteKeys() {
        redis.close();
    }

    @Override
    protected Store createStore() {
        return redis.first;
    }

    @Override
    protected Store secondInstance() {
        return redis.second;
    }

    /** Redis expires a record's key itself (PEXPIREAT); purgeExpired has nothing to do. */
    @Override
    protected boolean expiresRecordsItself() {
        return true;
    }
}
