package dev.idempotency.redis;

import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.testkit.AsyncStoreContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract through {@link RedisStore#async()} on standalone Redis, two clients for two instances. */
class RedisAsyncFaceContractTest extends AsyncStoreContractTest {

    private static TestRedis redis;

    @BeforeAll
    static void connect() {
        redis = TestRedis.standalone("async-contract");
    }

    @AfterAll
    static void deleteKeys() {
        redis.close();
    }

    @Override
    protected AsyncStore createAsyncStore() {
        return redis.first.async();
    }

    @Override
    protected AsyncStore secondAsyncInstance() {
        return redis.second.async();
    }

    /** Redis expires a record's key itself (PEXPIREAT); purgeExpired has nothing to do. */
    @Override
    protected boolean expiresRecordsItself() {
        return true;
    }
}
