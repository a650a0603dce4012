package dev.idempotency.redis;

import dev.idempotency.core.store.Store;
import dev.idempotency.testkit.StoreRaceTest;

/** The exact-count races on standalone Redis through the blocking face, two clients for two instances. */
class RedisStoreRaceTest extends StoreRaceTest {

    private TestRedis redis;

    @Override
    protected Store firstInstance() {
        redis = TestRedis.standalone("race");
        return redis.first;
    }

    @Override
    protected Store secondInstance() {
        return redis.second;
    }

    @Override
    protected void closeInstances() {
        redis.close();
    }
}
