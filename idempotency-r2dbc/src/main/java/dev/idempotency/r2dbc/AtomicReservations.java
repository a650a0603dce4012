package dev.idempotency.r2dbc;

import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.RecordKey;
import java.time.Duration;
import java.time.Instant;
import reactor.core.publisher.Mono;

/** {@link R2dbcStore#attemptInTransaction} in one database's words. */
interface AtomicReservations {

    /** One attempt in a fresh transaction on a connection of the factory; only a won attempt keeps it. */
    Mono<AtomicAttempt<AsyncReservation>> attempt(RecordKey key, String fingerprint, String ownerToken, Instant now,
                                                  Duration lease, Duration ttl, Duration wait);

    static AtomicReservations of(R2dbcStore store, Database db) {
        return db instanceof Database.Postgres postgres ? new PostgresAtomicReservations(store, postgres)
                : new MariaDbAtomicReservations(store, db);
    }
}
