package dev.idempotency.vertx.sql;

import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import dev.idempotency.sql.InFlightLocks;
import dev.idempotency.sql.NewRow;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlErrors;
import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link PgStore#attemptInTransaction}: idempotency-jdbc's atomic reservation attempt on
 * PostgreSQL, on one {@link SqlConnection}. The transaction is opened with {@code BEGIN}, the
 * transaction's settings (the session's lock wait saved, the caller's {@code wait} as
 * {@code lock_timeout}, a lease as {@code idle_in_transaction_session_timeout}, the tenant), the
 * reservation (which, when it wins, takes the three shared advisory locks) and the restored lock
 * wait, pipelined: one round trip.
 *
 * <p>A key whose row another transaction holds uncommitted makes the reservation wait for its row
 * lock, at most {@code wait}. When the wait runs out (55P03), the transaction is rolled back and
 * one read of {@code pg_locks} tells whether that transaction has the same body, another, or is
 * gone; the engine decides from that.
 *
 * <p>With a {@linkplain PgStore.Builder#statementTimeout statement timeout} the {@code BEGIN}
 * message also keeps the session's {@code statement_timeout} and sets the store's
 * ({@code SET LOCAL}); the restore after the reservation gives the session's back with its lock
 * wait, so the handler's statements run under the session's limits. A reservation cancelled by it
 * (57014) is rolled back and fails as {@link Reason#BUSY}.
 */
final class PgAtomicReservations {

    private static final Logger log = LoggerFactory.getLogger(PgAtomicReservations.class);

    /** "No wait" still waits this long: {@code 0} would mean forever (as idempotency-jdbc). */
    private static final long NO_WAIT_MILLIS = 50;

    private final PgStore store;
    private final SqlCatalog sql;
    private final InFlightLocks inFlightLocks;

    PgAtomicReservations(PgStore store) {
        this.store = store;
        this.sql = store.sql;
        this.inFlightLocks = new InFlightLocks(sql.table().label());
    }

    private record Request(RecordKey key, String fingerprint, Instant now, Duration lease, Duration lockWait,
                           long deadline) {
        String lockTimeout() {
            long left = lockWait.isZero() ? 0 : Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
            return Math.max(NO_WAIT_MILLIS, left) + "ms";
        }
    }

    /** One transaction on one pooled connection. */
    Future<AtomicAttempt<AsyncReservation>> attempt(RecordKey key, String fingerprint, String ownerToken,
                                                    Instant now, Duration lease, Duration ttl, Duration wait) {
        Instant at = Records.micros(now);
        Request r = new Request(key, fingerprint, at, lease, wait, System.nanoTime() + wait.toNanos());
        Map<String, Object> row = Records.rowValues(NewRow.inFlight(key, fingerprint, ownerToken, at, lease, ttl), at);
        row.putAll(inFlightLocks.values(key, fingerprint));
        return store.pool.getConnection().compose(c -> attempt(c, r, row, 1).transform(ar -> {
            if (ar.succeeded()) {
                PgStore.Attempt attempt = ar.result();
                if (attempt.won()) {
                    return Future.succeededFuture(new AtomicAttempt.Won<>(
                            new PgAtomicReservation(store, c, key, ownerToken)));
                }
                return rollbackAndClose(c).map(v -> new AtomicAttempt.Lost<>(attempt.lost()));
            }
            Throwable failure = ar.cause();
            String state = PgFailures.sqlState(failure);
            if (SqlErrors.isLockTimeout(state, 0)) {
                return c.query("ROLLBACK").execute()
                        .compose(v -> probe(c, r))
                        .recover(unknown -> {
                            log.warn("Could not tell which request body holds key_preview={}; answering in flight: {}",
                                    key.keyPreview(), unknown.toString());
                            return Future.succeededFuture(AtomicAttempt.Holder.SAME_BODY);
                        })
                        .andThen(h -> c.close())
                        .map(holder -> new AtomicAttempt.TimedOut<>(holder, failure));
            }
            Future<Void> ended = rollbackAndClose(c);
            if (SqlErrors.mustStartOver(state)) {
                return ended.map(v -> new AtomicAttempt.RolledBack<>());
            }
            return ended.transform(v -> Future.failedFuture(failure));
        }));
    }

    /** One attempt inside the transaction: the first opens and sets it up. All of it pipelined. */
    private Future<PgStore.Attempt> attempt(SqlConnection c, Request r, Map<String, Object> row, int attempt) {
        Future<?> setUp;
        if (attempt == 1) {
            Future<?> begin = c.query(store.statementTimeoutMillis == 0 ? "BEGIN ISOLATION LEVEL READ COMMITTED"
                    : "BEGIN ISOLATION LEVEL READ COMMITTED; "
                            + sql.localStatementTimeout(store.statementTimeoutMillis, true)).execute();
            boolean withTenant = store.tenantSetting != null;
            Map<String, Object> settings = new java.util.HashMap<>();
            settings.put("lock_timeout", r.lockTimeout());
            // A handler that hangs must not hold the row lock and the connection forever.
            settings.put("idle_timeout", Math.max(1, r.lease().toMillis()) + "ms");
            if (withTenant) {
                settings.put("tenant_setting", store.tenantSetting);
                settings.put("tenant", r.key().tenant());
            }
            Future<?> set = PgStore.query(c, sql.numberedCasts(withTenant ? "atomicSettingsWithTenant" : "atomicSettings"),
                    settings);
            setUp = begin.compose(v -> set);
        } else {
            // The restore after the first attempt gave the session's limits back: bound this one again.
            Future<?> bound = store.statementTimeoutMillis == 0 ? Future.succeededFuture()
                    : c.query(sql.localStatementTimeout(store.statementTimeoutMillis, false)).execute();
            Future<?> lockWait = PgStore.query(c, sql.numberedCasts("atomicLockTimeout"), Map.of("lock_timeout", r.lockTimeout()));
            setUp = bound.compose(v -> lockWait);
        }
        Future<RowSet<Row>> reserved =
                PgStore.query(c, sql.numberedCasts(attempt == 1 ? "atomicReserveFresh" : "atomicReserve"), row);
        Future<RowSet<Row>> restored = c.query(sql.sql(store.statementTimeoutMillis == 0 ? "restoreLockTimeout"
                : "restoreLockAndStatementTimeout")).execute();
        return setUp.compose(v -> reserved).compose(rows -> restored.map(v -> PgStore.Attempt.of(r.key(), rows, r.now())))
                .compose(result -> {
                    if (result.won() || result.lost() != null) {
                        return Future.succeededFuture(result);
                    }
                    if (attempt >= PgStore.MAX_ATTEMPTS) {
                        return Future.failedFuture(new IllegalStateException("Could not settle the atomic reservation"
                                + " of key_preview=" + r.key().keyPreview() + " after " + PgStore.MAX_ATTEMPTS
                                + " attempts: the row kept changing"));
                    }
                    return attempt(c, r, row, attempt + 1);
                });
    }

    /** One read of {@code pg_locks}, in autocommit mode, after the rollback. */
    private Future<AtomicAttempt.Holder> probe(SqlConnection c, Request r) {
        return PgStore.query(c, sql.numberedCasts("inFlightProbe"), inFlightLocks.values(r.key(), r.fingerprint()))
                .map(rows -> {
                    Row found = rows.iterator().next();
                    return InFlightLocks.holder(found.getBoolean("same_body"), found.getBoolean("key_held"));
                });
    }

    private static Future<Void> rollbackAndClose(SqlConnection c) {
        return c.query("ROLLBACK").execute().<Void>mapEmpty()
                .transform(rolledBack -> c.close().transform(closed -> Future.<Void>succeededFuture()));
    }
}
