package dev.idempotency.examples;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.Store;
import java.util.Optional;

/**
 * The idempotency store an example runs on — blocking ({@link Store}: JdbcStore, RedisStore) or
 * non-blocking ({@link AsyncStore}: PgStore, {@code RedisStore.async()}) — with the words the
 * start-up line shows for it and what to close on shutdown.
 */
public final class ExampleStore implements AutoCloseable {

    private final Store blocking;
    private final AsyncStore async;
    private final String description;
    private final AutoCloseable resources;

    private ExampleStore(Store blocking, AsyncStore async, String description, AutoCloseable resources) {
        this.blocking = blocking;
        this.async = async;
        this.description = description;
        this.resources = resources;
    }

    /** A blocking store; {@code resources} (may be a no-op) is closed after the engine. */
    public static ExampleStore blocking(Store store, String description, AutoCloseable resources) {
        return new ExampleStore(store, null, description, resources);
    }

    /** A non-blocking store; {@code resources} (may be a no-op) is closed after the engine. */
    public static ExampleStore async(AsyncStore store, String description, AutoCloseable resources) {
        return new ExampleStore(null, store, description, resources);
    }

    /** The engine over this store. */
    IdempotencyEngine engine(IdempotencyConfig config) {
        return blocking != null ? new IdempotencyEngine(blocking, config) : new IdempotencyEngine(async, config);
    }

    /** The blocking store; empty for a non-blocking one. */
    public Optional<Store> blockingStore() {
        return Optional.ofNullable(blocking);
    }

    /** E.g. {@code RedisStore (key prefix idempotency:) at redis://127.0.0.1:6379}. */
    public String description() {
        return description;
    }

    @Override
    public void close() {
        try {
            resources.close();
        } catch (Exception e) {
            // shutting down anyway
        }
    }
}
