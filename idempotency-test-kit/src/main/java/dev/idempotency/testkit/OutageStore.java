package dev.idempotency.testkit;

import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Wraps a store and, while an outage is switched on, fails every call the way a store whose
 * table is missing or whose database is down does. For tests of the 503 path.
 */
public final class OutageStore implements Store {

    private volatile Store delegate;
    private volatile StorageUnavailableException.Reason outage;

    public OutageStore(Store delegate) {
        this.delegate = delegate;
    }

    /** Wraps {@code fresh} instead, with no outage: the next test's store behind an engine that is kept. */
    void replace(Store fresh) {
        this.delegate = fresh;
        this.outage = null;
    }

    /** Fails every call with this reason from now on; {@code null} ends the outage. */
    public void outage(StorageUnavailableException.Reason reason) {
        this.outage = reason;
    }

    @Override
    public void check() {
        failDuringOutage();
        delegate.check();
    }

    private void failDuringOutage() {
        StorageUnavailableException.Reason reason = outage;
        if (reason != null) {
            throw new StorageUnavailableException(reason, "simulated outage: " + reason, null);
        }
    }

    @Override
    public ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                                 Duration ttl) {
        failDuringOutage();
        return delegate.reserve(key, fingerprint, ownerToken, now, lease, ttl);
    }

    /** Not failed by an outage: a won reservation's calls reach the store, as before one began. */
    @Override
    public boolean complete(RecordKey key, String ownerToken, StoredResponse response) {
        return delegate.complete(key, ownerToken, response);
    }

    @Override
    public boolean renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
        return delegate.renew(key, ownerToken, now, lease);
    }

    @Override
    public boolean releaseIfOwned(RecordKey key, String ownerToken) {
        failDuringOutage();
        return delegate.releaseIfOwned(key, ownerToken);
    }

    @Override
    public Optional<IdempotencyRecord> find(RecordKey key, Instant now) {
        failDuringOutage();
        return delegate.find(key, now);
    }

    @Override
    public boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now,
                                   Duration ttl) {
        failDuringOutage();
        return delegate.insertCompleted(key, fingerprint, response, now, ttl);
    }

    @Override
    public int purgeExpired(Instant now, int limit) {
        failDuringOutage();
        return delegate.purgeExpired(now, limit);
    }

    @Override
    public boolean expiresRecordsItself() {
        return delegate.expiresRecordsItself();
    }
}
