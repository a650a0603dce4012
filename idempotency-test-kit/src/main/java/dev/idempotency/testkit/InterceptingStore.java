package dev.idempotency.testkit;

import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A store that tells {@code beforeCall} the name of every call — reservation handles included —
 * on the calling thread, before passing it on: to see on which threads an adapter calls its
 * store (never an event loop), or to hold a call back.
 */
public final class InterceptingStore implements Store {

    private final Store delegate;
    private final Consumer<String> beforeCall;

    public InterceptingStore(Store delegate, Consumer<String> beforeCall) {
        this.delegate = delegate;
        this.beforeCall = beforeCall;
    }

    private void before(String operation) {
        beforeCall.accept(operation);
    }

    @Override
    public ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                                 Duration ttl) {
        before("reserve");
        ReserveResult result = delegate.reserve(key, fingerprint, ownerToken, now, lease, ttl);
        return result instanceof ReserveResult.Acquired ? ReserveResult.acquired(this, key, ownerToken) : result;
    }

    @Override
    public boolean complete(RecordKey key, String ownerToken, StoredResponse response) {
        before("complete");
        return delegate.complete(key, ownerToken, response);
    }

    @Override
    public boolean renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
        before("renew");
        return delegate.renew(key, ownerToken, now, lease);
    }

    @Override
    public boolean releaseIfOwned(RecordKey key, String ownerToken) {
        before("releaseIfOwned");
        return delegate.releaseIfOwned(key, ownerToken);
    }

    @Override
    public void check() {
        before("check");
        delegate.check();
    }

    @Override
    public Optional<IdempotencyRecord> find(RecordKey key, Instant now) {
        before("find");
        return delegate.find(key, now);
    }

    @Override
    public boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now,
                                   Duration ttl) {
        before("insertCompleted");
        return delegate.insertCompleted(key, fingerprint, response, now, ttl);
    }

    @Override
    public int purgeExpired(Instant now, int limit) {
        before("purgeExpired");
        return delegate.purgeExpired(now, limit);
    }

    @Override
    public boolean expiresRecordsItself() {
        return delegate.expiresRecordsItself();
    }
}
