package dev.idempotency.sql;

import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The atomic mode's attempt, written once over {@link SqlSession}: one READ COMMITTED transaction
 * on one pooled connection that a won {@link SqlReservation} keeps open for the handler.
 *
 * <p>A key whose row another transaction holds uncommitted makes the reservation wait for its row
 * lock, at most the caller's {@code wait}. When the wait runs out, the transaction is rolled back
 * and the dialect tells, without waiting, who holds the key; the engine decides from that.
 * <ul>
 *   <li>PostgreSQL: {@code BEGIN} (with a statement timeout, the store's bound, {@code SET LOCAL}),
 *       the transaction's settings (the session's lock wait saved, {@code wait} as
 *       {@code lock_timeout}, the lease as {@code idle_in_transaction_session_timeout}, the tenant
 *       with row-level security), the reservation (which, when it wins, takes the shared advisory
 *       locks of {@link InFlightLocks}) and the session's limits given back. The holder: one read
 *       of {@code pg_locks}.</li>
 *   <li>MariaDB/MySQL, H2: the session's lock wait saved and set to {@code wait}
 *       ({@link SqlCatalog#lockWait}), READ COMMITTED, the upsert (won when the row holds this
 *       attempt's owner token), the lock wait given back once won. The holder: a dirty read of the
 *       row, used only for its fingerprint (an uncommitted completion is never replayed).</li>
 * </ul>
 * A deadlock or serialization failure (40P01, 40001) is rolled back and started over by the engine.
 *
 * @param tenantSetting          PostgreSQL row-level security's setting, or {@code null}
 * @param statementTimeoutMillis PostgreSQL: the store's bound on the reservation, or 0
 * @param failures               the store's translation of a driver failure (outages)
 */
public record AtomicSql(SqlCatalog sql, SqlConnections connections, String tenantSetting, long statementTimeoutMillis,
                        UnaryOperator<Throwable> failures, Reservations reservations) {

    private static final System.Logger log = System.getLogger(AtomicSql.class.getName());

    /** Reservation statements in one transaction: lost races the statement cannot describe. */
    public static final int MAX_ATTEMPTS = 8;
    /** PostgreSQL: "no wait" still waits this long ({@code 0} would mean forever). */
    public static final long NO_WAIT_MILLIS = 50;

    /** The won reservation a driver hands the handler; {@link SqlReservation#SqlReservation} by default. */
    @FunctionalInterface
    public interface Reservations {
        SqlReservation won(SqlSession session, RecordKey key, String ownerToken, UnaryOperator<Throwable> failures);
    }

    private boolean postgres() {
        return sql.dialect() == SqlDialect.POSTGRES;
    }

    private record Request(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                           Duration lockWait, long deadline, Map<String, Object> row) {
        Duration left() {
            return lockWait.isZero() ? Duration.ZERO : Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        }

        String lockTimeout() {
            return Math.max(NO_WAIT_MILLIS, left().toMillis()) + "ms";
        }
    }

    /** One transaction on one pooled connection; only a won attempt keeps it. Fails with the driver's failure. */
    public CompletionStage<AtomicAttempt<AsyncReservation>> attempt(RecordKey key, String fingerprint, String ownerToken,
                                                                    Instant now, Duration lease, Duration ttl,
                                                                    Duration wait) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(ownerToken, "ownerToken");
        if (Objects.requireNonNull(wait, "wait").isNegative()) {
            throw new IllegalArgumentException("wait must not be negative, was " + wait);
        }
        Instant at = Records.micros(now);
        Map<String, Object> row = Records.rowValues(NewRow.inFlight(key, fingerprint, ownerToken, at, lease, ttl), at);
        if (postgres()) {
            row.putAll(new InFlightLocks(sql.table().label()).values(key, fingerprint));
            // A handler that hangs must not hold the row lock and the connection forever.
            row.put("idle_timeout", Math.max(1, lease.toMillis()) + "ms");
            if (tenantSetting != null) {
                row.put("tenant_setting", tenantSetting);
                row.put("tenant", key.tenant());
            }
        }
        Request r = new Request(key, fingerprint, ownerToken, at, lease, wait, System.nanoTime() + wait.toNanos(), row);
        return connections.open().thenCompose(s -> settle(reserved(s, r),
                lost -> lost != null ? end(s).thenApply(v -> new AtomicAttempt.Lost<>(lost))
                        : CompletableFuture.completedFuture(
                                new AtomicAttempt.Won<>(reservations.won(s, r.key(), r.ownerToken(), failures))),
                failure -> failed(s, r, failure)));
    }

    /** The attempts until one settles: {@code null} when won (the lock wait given back), else the live record. */
    private CompletionStage<IdempotencyRecord> reserved(SqlSession s, Request r) {
        try {
            // MariaDB: the handler's statements get the session's usual lock wait.
            return reserve(s, r, 1).thenCompose(lost -> lost != null || postgres()
                    ? CompletableFuture.completedFuture(lost)
                    : s.execute(sql.sql("restoreLockWait")).thenApply(v -> lost));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Opens the transaction: PostgreSQL bounds its statements; MariaDB/MySQL/H2 bound the lock wait first. */
    private CompletionStage<Void> begin(SqlSession s, Request r) {
        if (!postgres()) {
            return s.execute(sql.lockWait(r.left(), true)).thenCompose(v -> s.begin(null));
        }
        return s.begin(statementTimeoutMillis == 0 ? null : sql.localStatementTimeout(statementTimeoutMillis, true));
    }

    /** One reservation statement in the transaction: {@code null} when won, the live record in the way when lost. */
    private CompletionStage<IdempotencyRecord> reserve(SqlSession s, Request r, int attempt) {
        CompletionStage<Void> setUp = attempt == 1 ? begin(s, r)
                : postgres() ? (statementTimeoutMillis == 0 ? done()
                        // The restore after the first attempt gave the session's limits back: bound this one again.
                        : s.execute(sql.localStatementTimeout(statementTimeoutMillis, false)))
                : s.execute(sql.lockWait(r.left(), false));
        Function<SqlSession.Row, SqlReserve.Found> mapping =
                row -> SqlReserve.found(sql.dialect(), r.key(), r.ownerToken(), row);
        CompletionStage<List<SqlReserve.Found>> reserved;
        if (postgres()) {
            // The lock wait, the reservation and the session's limits given back, sent together.
            Map<String, Object> values = new HashMap<>(r.row());
            values.put("lock_timeout", r.lockTimeout());
            List<String> names = List.of(attempt > 1 ? "atomicLockTimeout"
                            : tenantSetting == null ? "atomicSettings" : "atomicSettingsWithTenant",
                    attempt == 1 ? "atomicReserveFresh" : "atomicReserve",
                    statementTimeoutMillis == 0 ? "restoreLockTimeout" : "restoreLockAndStatementTimeout");
            reserved = setUp.thenCompose(v -> s.queryTogether(names, 1, values, mapping));
        } else {
            reserved = setUp.thenCompose(v -> s.upsert(r.row(), mapping));
        }
        return reserved.thenCompose(rows -> {
            SqlReserve.Found found = rows.isEmpty() ? null : rows.get(0);
            if (found != null && (found.won() || Records.isLive(found.record(), r.now()))) {
                return CompletableFuture.completedFuture(found.record());
            }
            if (attempt >= MAX_ATTEMPTS) {
                throw new IllegalStateException("Could not settle the atomic reservation of key_preview="
                        + r.key().keyPreview() + " after " + MAX_ATTEMPTS + " attempts: the row kept changing");
            }
            return reserve(s, r, attempt + 1);
        });
    }

    /** A failed attempt, rolled back and its connection closed: timed out, to start over, or failed. */
    private CompletionStage<AtomicAttempt<AsyncReservation>> failed(SqlSession s, Request r, Throwable failure) {
        SqlConnections.SqlError error = connections.error(failure);
        if (error != null && SqlErrors.isLockTimeout(error.sqlState(), error.code())) {
            return settle(restoreLockWait(s).thenCompose(v -> s.rollback()).thenCompose(v -> holder(s, r)),
                    CompletableFuture::completedFuture,
                    unknown -> {
                        log.log(Level.WARNING, "Could not tell which request body holds key_preview={0}; answering"
                                + " in flight: {1}", r.key().keyPreview(), unknown.toString());
                        return CompletableFuture.completedFuture(AtomicAttempt.Holder.SAME_BODY);
                    })
                    .thenCompose(holder -> s.close().thenApply(v -> new AtomicAttempt.TimedOut<>(holder, failure)));
        }
        return end(s).thenCompose(v -> {
            if (error != null && SqlErrors.mustStartOver(error.sqlState())) {
                return CompletableFuture.completedFuture(new AtomicAttempt.RolledBack<>());
            }
            return CompletableFuture.failedFuture(failure);
        });
    }

    /** After the rollback, without waiting: which body holds the key. */
    private CompletionStage<AtomicAttempt.Holder> holder(SqlSession s, Request r) {
        if (postgres()) {
            return s.query("inFlightProbe", new InFlightLocks(sql.table().label()).values(r.key(), r.fingerprint()),
                            row -> InFlightLocks.holder(row.bool("same_body"), row.bool("key_held")))
                    .thenApply(rows -> rows.get(0));
        }
        Map<String, Object> values = Records.keyValues(r.key());
        values.put("now", r.now());
        return s.readUncommitted(() -> s.query("find", values, row -> Records.read(r.key(), row)))
                .thenApply(rows -> Records.holderOf(rows.stream().findFirst(), r.fingerprint(), r.now()));
    }

    /**
     * The session's settings given back, ROLLBACK (whatever each says), the connection closed: in this
     * order, as a transaction another owns (JTA's) may take the connection with it when it ends.
     */
    private CompletionStage<Void> end(SqlSession s) {
        return quietly(restoreLockWait(s)).thenCompose(v -> quietly(s.rollback())).thenCompose(v -> s.close());
    }

    /** MariaDB/MySQL, H2: the session's lock wait given back; PostgreSQL's ends with the transaction. */
    private CompletionStage<Void> restoreLockWait(SqlSession s) {
        return postgres() ? done() : s.execute(sql.sql("restoreLockWait"));
    }

    static CompletionStage<Void> quietly(CompletionStage<Void> stage) {
        return stage.exceptionally(failure -> null);
    }

    static CompletionStage<Void> done() {
        return CompletableFuture.completedFuture(null);
    }

    /** {@code stage} continued by {@code success} or {@code failure} (its cause, unwrapped). */
    static <T, R> CompletionStage<R> settle(CompletionStage<T> stage, Function<T, CompletionStage<R>> success,
                                            Function<Throwable, CompletionStage<R>> failure) {
        return stage.handle((value, e) -> e == null ? success.apply(value) : failure.apply(SqlOutages.unwrap(e)))
                .thenCompose(Function.identity());
    }
}
