package dev.idempotency.core.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * A thread-safe store in one JVM's memory: for tests and single-process services. Records are
 * lost when the process stops and are not shared between instances — use the JDBC store for
 * anything that runs more than one copy.
 *
 * <p>Every primitive is one atomic {@link ConcurrentHashMap#compute}, so the contract's "exactly
 * one winner" holds across threads.
 */
public final class InMemoryStore implements Store {

    private final ConcurrentHashMap<RecordKey, Entry> records = new ConcurrentHashMap<>();

    /** One stored record; immutable, replaced on every change. */
    private record Entry(String fingerprint, RecordState state, StoredResponse response, Instant expiresAt,
                         Instant leaseUntil, String ownerToken) {

        /** Completed and not expired, or in flight under a lease that still runs. */
        boolean isLive(Instant now) {
            return state == RecordState.COMPLETED ? expiresAt.isAfter(now) : leaseUntil.isAfter(now);
        }

        /** What {@link #find} returns: not expired, or live. */
        boolean isPresent(Instant now) {
            return expiresAt.isAfter(now) || isLive(now);
        }

        IdempotencyRecord toRecord(RecordKey key) {
            return new IdempotencyRecord(key, fingerprint, state, response, expiresAt,
                    state == RecordState.IN_FLIGHT ? leaseUntil : null);
        }
    }

    @Override
    public ReserveResult reserve(RecordKey key, String fingerprint, String token, Instant now, Duration lease,
                                 Duration ttl) {
        Objects.requireNonNull(token, "ownerToken");
        AtomicReference<Entry> blocking = new AtomicReference<>();
        records.compute(key, (k, current) -> {
            if (current != null && current.isLive(now)) {
                blocking.set(current);
                return current;
            }
            return new Entry(fingerprint, RecordState.IN_FLIGHT, null, now.plus(ttl), now.plus(lease), token);
        });
        Entry existing = blocking.get();
        return existing == null
                ? ReserveResult.acquired(this, key, token)
                : new ReserveResult.Existing(existing.toRecord(key));
    }

    @Override
    public boolean releaseIfOwned(RecordKey key, String ownerToken) {
        return changeIfOwned(key, ownerToken, current -> null);
    }

    @Override
    public boolean complete(RecordKey key, String ownerToken, StoredResponse response) {
        // The expiry stays where the reservation put it: the ttl counts from the reservation.
        return changeIfOwned(key, ownerToken, current -> new Entry(current.fingerprint, RecordState.COMPLETED,
                response, current.expiresAt, null, current.ownerToken));
    }

    @Override
    public boolean renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
        // The expiry follows the lease, so that a renewed reservation is never purged.
        Instant leaseUntil = now.plus(lease);
        return changeIfOwned(key, ownerToken, current -> new Entry(current.fingerprint, current.state, null,
                leaseUntil.isAfter(current.expiresAt) ? leaseUntil : current.expiresAt, leaseUntil,
                current.ownerToken));
    }

    /** Applies {@code change} atomically when the record is still {@code ownerToken}'s in-flight one. */
    private boolean changeIfOwned(RecordKey key, String ownerToken, UnaryOperator<Entry> change) {
        AtomicReference<Boolean> owned = new AtomicReference<>(false);
        records.computeIfPresent(key, (k, current) -> {
            if (current.state != RecordState.IN_FLIGHT || !current.ownerToken.equals(ownerToken)) {
                return current;
            }
            owned.set(true);
            return change.apply(current);
        });
        return owned.get();
    }

    @Override
    public Optional<IdempotencyRecord> find(RecordKey key, Instant now) {
        Entry entry = records.get(key);
        if (entry == null || !entry.isPresent(now)) {
            return Optional.empty();
        }
        return Optional.of(entry.toRecord(key));
    }

    @Override
    public boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now,
                                   Duration ttl) {
        AtomicReference<Boolean> inserted = new AtomicReference<>(false);
        records.compute(key, (k, current) -> {
            if (current != null && current.isLive(now)) {
                return current;
            }
            inserted.set(true);
            return new Entry(fingerprint, RecordState.COMPLETED, response, now.plus(ttl), null, "");
        });
        return inserted.get();
    }

    @Override
    public int purgeExpired(Instant now, int limit) {
        int purged = 0;
        Iterator<Map.Entry<RecordKey, Entry>> it = records.entrySet().iterator();
        while (it.hasNext() && purged < limit) {
            Map.Entry<RecordKey, Entry> e = it.next();
            if (!e.getValue().isPresent(now) && records.remove(e.getKey(), e.getValue())) {
                purged++;
            }
        }
        return purged;
    }

    /** The number of records held, expired ones included. */
    public int size() {
        return records.size();
    }
}
