package dev.idempotency.jdbc;

import dev.idempotency.core.store.AbstractReservation;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;

/**
 * A won reservation of {@link JdbcStore}: each finish is one owner-checked statement. It holds no
 * connection between calls; the atomic mode's {@link TransactionalReservation} is the one that
 * keeps its connection and transaction, and exposes them through {@code unwrap}.
 */
final class JdbcReservation extends AbstractReservation {

    private final JdbcStore store;

    JdbcReservation(JdbcStore store, RecordKey key, String ownerToken) {
        super(key, ownerToken);
        this.store = store;
    }

    @Override
    protected boolean doComplete(StoredResponse response) {
        return store.complete(key(), ownerToken(), response);
    }

    @Override
    protected boolean doRelease() {
        return store.release(key(), ownerToken());
    }

    @Override
    protected boolean doRenew(Instant now, Duration lease) {
        return store.renew(key(), ownerToken(), now, lease);
    }
}
