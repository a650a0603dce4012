package dev.idempotency.redis;

import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.testkit.AsyncStoreRaceTest;

/** The exact-count races on standalone Redis through the asynchronous face (engines on it too). */
class RedisAsyncStoreRaceTest extends AsyncStoreRaceTest {

    private TestRedis redis;

    @Override
    protected AsyncStore firstAsyncInstance() {
        redis = TestRedis.standalone("async-race");
        return redis.first.async();
    }

    @Override
    protected AsyncStore secondAsyncInstance() {
        return redis.second.async();
    }

    @Override
    protected void closeInstances() {
        redis.close();
    }
}
