package dev.idempotency.r2dbc;

import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.sql.InFlightLocks;
import dev.idempotency.sql.NewRow;
import dev.idempotency.sql.Placeholders;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlErrors;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.R2dbcException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * {@link R2dbcStore#attemptInTransaction} on PostgreSQL: idempotency-jdbc's atomic reservation
 * attempt on one connection of the factory, as {@code PgAtomicReservations} makes it on the Vert.x
 * client. {@code BEGIN ISOLATION LEVEL READ COMMITTED}, the transaction's settings (the session's
 * lock wait saved, the caller's {@code wait} as {@code lock_timeout}, the lease as
 * {@code idle_in_transaction_session_timeout}), the reservation (which, when it wins, takes the
 * shared advisory locks the probe reads) and the restored lock wait.
 *
 * <p>When the wait for another transaction's row lock runs out (55P03), the transaction is rolled
 * back and one read of {@code pg_locks} tells whether that transaction has the same body, another,
 * or is gone. A deadlock or serialization failure (40P01, 40001) is rolled back and started over
 * by the engine. Only a won attempt keeps its connection, for its {@link R2dbcAtomicReservation}.
 */
final class PostgresAtomicReservations implements AtomicReservations {

    private static final Logger log = LoggerFactory.getLogger(PostgresAtomicReservations.class);

    /** "No wait" still waits this long: {@code 0} would mean forever (as idempotency-jdbc). */
    private static final long NO_WAIT_MILLIS = 50;

    private final R2dbcStore store;
    private final Database.Postgres db;
    private final SqlCatalog sql;
    private final InFlightLocks inFlightLocks;
    private final Placeholders.Sql settings;
    private final Placeholders.Sql lockTimeout;
    private final Placeholders.Sql reserveFresh;
    private final Placeholders.Sql reserve;
    private final Placeholders.Sql probe;

    PostgresAtomicReservations(R2dbcStore store, Database.Postgres db) {
        this.store = store;
        this.db = db;
        this.sql = db.catalog;
        this.inFlightLocks = new InFlightLocks(sql.table().label());
        this.settings = db.statement("atomicSettings");
        this.lockTimeout = db.statement("atomicLockTimeout");
        this.reserveFresh = db.statement("atomicReserveFresh");
        this.reserve = db.statement("atomicReserve");
        this.probe = db.statement("inFlightProbe");
    }

    private record Request(RecordKey key, String ownerToken, Instant now, Duration lease, Duration lockWait,
                           long deadline, Map<String, Object> row) {
        String lockTimeout() {
            long left = lockWait.isZero() ? 0 : Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
            return Math.max(NO_WAIT_MILLIS, left) + "ms";
        }
    }

    /** One transaction on one connection of the factory. */
    @Override
    public Mono<AtomicAttempt<AsyncReservation>> attempt(RecordKey key, String fingerprint, String ownerToken, Instant now,
                                                  Duration lease, Duration ttl, Duration wait) {
        Instant at = Records.micros(now);
        Map<String, Object> row = Records.rowValues(new NewRow(key, fingerprint, Records.IN_FLIGHT,
                ownerToken, Records.micros(at.plus(lease)), null, Records.micros(at.plus(ttl)), at), at);
        Map<String, Object> locks = inFlightLocks.values(key, fingerprint);
        row.putAll(locks);
        Request r = new Request(key, ownerToken, at, lease, wait, System.nanoTime() + wait.toNanos(), row);
        return Mono.from(store.factory().create()).flatMap(c -> begin(c, r).then(attempt(c, r, 1))
                .<AtomicAttempt<AsyncReservation>>flatMap(lost -> lost.isEmpty()
                        ? Mono.just(new AtomicAttempt.Won<>(new R2dbcAtomicReservation(store, db, c, key, ownerToken)))
                        : rollbackAndClose(c).thenReturn(new AtomicAttempt.Lost<>(lost.get())))
                .onErrorResume(failure -> failed(c, r, locks, failure))
                .doOnCancel(() -> rollbackAndClose(c).subscribe()));
    }

    /** The transaction and its settings; with a statement timeout, the store's bound until the restore. */
    private Mono<Void> begin(Connection c, Request r) {
        String begin = "BEGIN ISOLATION LEVEL READ COMMITTED";
        Mono<Void> opened = Database.drain(c, db.timeoutMillis == 0 ? begin
                : begin + "; " + sql.localStatementTimeout(db.timeoutMillis, true));
        Map<String, Object> values = new HashMap<>();
        values.put("lock_timeout", r.lockTimeout());
        // A handler that hangs must not hold the row lock and the connection forever.
        values.put("idle_timeout", Math.max(1, r.lease().toMillis()) + "ms");
        return opened.then(store.rowsUpdated(c, settings, r.key(), values)).then();
    }

    /** One attempt in the transaction: empty when won, the live record in the way when lost. */
    private Mono<Optional<IdempotencyRecord>> attempt(Connection c, Request r, int attempt) {
        Mono<Void> setUp = attempt == 1 ? Mono.empty()
                : (db.timeoutMillis == 0 ? Mono.<Void>empty()
                        : Database.drain(c, sql.localStatementTimeout(db.timeoutMillis, false)))
                        .then(store.rowsUpdated(c, lockTimeout, r.key(), Map.of("lock_timeout", r.lockTimeout())).then());
        String restore = sql.sql(db.timeoutMillis == 0 ? "restoreLockTimeout" : "restoreLockAndStatementTimeout");
        Mono<Optional<IdempotencyRecord>> reserved = store.execute(c, attempt == 1 ? reserveFresh : reserve, r.key(), r.row())
                .concatMap(result -> result.map((row, metadata) -> Boolean.TRUE.equals(row.get("won", Boolean.class))
                        ? Optional.<IdempotencyRecord>empty() : Optional.of(Rows.read(r.key(), row, db))))
                .collectList()
                .flatMap(rows -> Database.drain(c, restore).then(rows.isEmpty()
                        ? Mono.<Optional<IdempotencyRecord>>empty() : Mono.just(rows.get(0))));
        return setUp.then(reserved)
                .filter(found -> found.isEmpty() || Records.isLive(found.get(), r.now()))
                .switchIfEmpty(Mono.defer(() -> {
                    if (attempt >= R2dbcStore.MAX_ATTEMPTS) {
                        return Mono.error(new IllegalStateException("Could not settle the atomic reservation of"
                                + " key_preview=" + r.key().keyPreview() + " after " + attempt
                                + " attempts: the row kept changing"));
                    }
                    return attempt(c, r, attempt + 1);
                }));
    }

    /** A failed attempt, rolled back and its connection closed: timed out, to start over, or failed. */
    private Mono<AtomicAttempt<AsyncReservation>> failed(Connection c, Request r, Map<String, Object> locks,
                                                          Throwable failure) {
        String state = failure instanceof R2dbcException e ? e.getSqlState() : null;
        if (SqlErrors.isLockTimeout(state, 0)) {
            Mono<AtomicAttempt.Holder> holder = Database.drain(c, "ROLLBACK")
                    .then(store.execute(c, probe, r.key(), locks)
                            .concatMap(result -> result.map((row, metadata) -> InFlightLocks.holder(
                                    Boolean.TRUE.equals(row.get("same_body", Boolean.class)),
                                    Boolean.TRUE.equals(row.get("key_held", Boolean.class)))))
                            .next())
                    .onErrorResume(unknown -> Mono.empty())
                    .switchIfEmpty(Mono.fromSupplier(() -> {
                        log.warn("Could not tell which request body holds key_preview={}; answering in flight",
                                r.key().keyPreview());
                        return AtomicAttempt.Holder.SAME_BODY;
                    }));
            return holder.flatMap(h -> close(c).thenReturn(new AtomicAttempt.TimedOut<>(h, failure)));
        }
        Mono<Void> ended = rollbackAndClose(c);
        if (SqlErrors.mustStartOver(state)) {
            return ended.thenReturn(new AtomicAttempt.RolledBack<>());
        }
        return ended.then(Mono.error(failure));
    }

    private static Mono<Void> rollbackAndClose(Connection c) {
        return Database.drain(c, "ROLLBACK").onErrorResume(failure -> Mono.empty()).then(close(c));
    }

    private static Mono<Void> close(Connection c) {
        return Mono.from(c.close()).onErrorResume(failure -> Mono.empty());
    }
}
