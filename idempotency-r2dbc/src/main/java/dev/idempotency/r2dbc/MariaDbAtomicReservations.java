package dev.idempotency.r2dbc;

import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.sql.NewRow;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SqlErrors;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.R2dbcException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * {@link R2dbcStore#attemptInTransaction} on MariaDB, with {@code JdbcStore}'s MariaDB session
 * statements ({@link dev.idempotency.sql.SqlCatalog#lockWait}): the session's {@code innodb_lock_wait_timeout}
 * saved and set to the caller's {@code wait} (whole seconds), a READ COMMITTED transaction, the
 * reservation upsert (won when the row holds this attempt's owner token), and the lock wait given
 * back once it is won.
 *
 * <p>When the wait for another transaction's row lock runs out (1205), the transaction is rolled
 * back and one dirty read of the row (READ UNCOMMITTED, a transaction of its own) tells whether
 * its holder has the same body, another, or is completing. A deadlock (40001) starts over.
 */
final class MariaDbAtomicReservations implements AtomicReservations {

    private static final Logger log = LoggerFactory.getLogger(MariaDbAtomicReservations.class);

    private final R2dbcStore store;
    private final Database db;

    MariaDbAtomicReservations(R2dbcStore store, Database db) {
        this.store = store;
        this.db = db;
    }

    private record Request(NewRow newRow, Map<String, Object> row, Instant now, long deadline) {
        Duration left() {
            return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        }
    }

    @Override
    public Mono<AtomicAttempt<AsyncReservation>> attempt(RecordKey key, String fingerprint, String ownerToken,
                                                         Instant now, Duration lease, Duration ttl, Duration wait) {
        Instant at = Records.micros(now);
        NewRow newRow = new NewRow(key, fingerprint, Records.IN_FLIGHT, ownerToken,
                Records.micros(at.plus(lease)), null, Records.micros(at.plus(ttl)), at);
        Request r = new Request(newRow, Records.rowValues(newRow, at), at, System.nanoTime() + wait.toNanos());
        return Mono.from(store.factory().create()).flatMap(c -> Database.drain(c, db.catalog.lockWait(seconds(wait), true))
                .then(Database.drain(c, db.catalog.sql("readCommittedNext")))
                .then(Database.drain(c, "START TRANSACTION"))
                .then(attempt(c, r, 1))
                .<AtomicAttempt<AsyncReservation>>flatMap(lost -> lost.isEmpty()
                        ? Database.drain(c, db.catalog.sql("restoreLockWait")).thenReturn(new AtomicAttempt.Won<>(
                                new R2dbcAtomicReservation(store, db, c, key, ownerToken)))
                        : end(c).thenReturn(new AtomicAttempt.Lost<>(lost.get())))
                .onErrorResume(failure -> failed(c, r, failure))
                .doOnCancel(() -> end(c).subscribe()));
    }

    /** One upsert in the transaction: empty when won, the live record in the way when lost. */
    private Mono<Optional<IdempotencyRecord>> attempt(Connection c, Request r, int attempt) {
        RecordKey key = r.newRow().key();
        Mono<Void> lockWait = attempt == 1 ? Mono.empty() : Database.drain(c, db.catalog.lockWait(seconds(r.left()), false));
        return lockWait.then(store.execute(c, db.reservation(0), key, r.row())
                        .concatMap(result -> result.map((row, metadata) -> db.won(row, r.newRow().ownerToken())
                                ? Optional.<IdempotencyRecord>empty() : Optional.of(Rows.read(key, row, db))))
                        .next())
                .filter(found -> found.isEmpty() || Records.isLive(found.get(), r.now()))
                .switchIfEmpty(Mono.defer(() -> {
                    if (attempt >= R2dbcStore.MAX_ATTEMPTS) {
                        return Mono.error(new IllegalStateException("Could not settle the atomic reservation of"
                                + " key_preview=" + key.keyPreview() + " after " + attempt
                                + " attempts: the row kept changing"));
                    }
                    return attempt(c, r, attempt + 1);
                }));
    }

    private Mono<AtomicAttempt<AsyncReservation>> failed(Connection c, Request r, Throwable failure) {
        R2dbcException e = failure instanceof R2dbcException r2dbc ? r2dbc : null;
        if (e != null && SqlErrors.isLockTimeout(e.getSqlState(), e.getErrorCode())) {
            RecordKey key = r.newRow().key();
            Map<String, Object> values = Records.keyValues(key);
            values.put("now", r.now());
            Mono<AtomicAttempt.Holder> holder = rollback(c)
                    .then(Database.drain(c, db.catalog.sql("readUncommittedNext")))
                    .then(store.execute(c, db.find, key, values)
                            .concatMap(result -> result.map((row, metadata) -> Rows.read(key, row, db)))
                            .next()
                            .map(Optional::of)
                            .defaultIfEmpty(Optional.empty()))
                    .map(newest -> Records.holderOf(newest, r.newRow().fingerprint(), r.now()))
                    .onErrorResume(unknown -> {
                        log.warn("Could not tell which request body holds key_preview={}; answering in flight: {}",
                                key.keyPreview(), unknown.getClass().getName());
                        return Mono.just(AtomicAttempt.Holder.SAME_BODY);
                    });
            return holder.flatMap(h -> close(c).thenReturn(new AtomicAttempt.TimedOut<>(h, failure)));
        }
        if (e != null && SqlErrors.mustStartOver(e.getSqlState())) {
            return end(c).thenReturn(new AtomicAttempt.RolledBack<>());
        }
        return end(c).then(Mono.error(failure));
    }

    /** ROLLBACK and the session's lock wait given back. */
    private Mono<Void> rollback(Connection c) {
        return Database.drain(c, "ROLLBACK").onErrorResume(failure -> Mono.empty())
                .then(Database.drain(c, db.catalog.sql("restoreLockWait")).onErrorResume(failure -> Mono.empty()));
    }

    /** {@code wait} in whole seconds, rounded up (MariaDB accepts 0: no wait). */
    private static long seconds(Duration wait) {
        return (Math.max(0, Math.min(Integer.MAX_VALUE, wait.toMillis())) + 999) / 1000;
    }

    private Mono<Void> end(Connection c) {
        return rollback(c).then(close(c));
    }

    private static Mono<Void> close(Connection c) {
        return Mono.from(c.close()).onErrorResume(failure -> Mono.empty());
    }
}
