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
 *   <li>MariaDB/MySQL: the session's {@code innodb_lock_wait_timeout} saved and set to {@code wait}
 *       (whole seconds), READ COMMITTED, the upsert (won when the row holds this attempt's owner
 *       token), the lock wait given back once won. The holder: a dirty read of the row, used only
 *       for its fingerprint (an uncommitted completion is never replayed).</li>
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

    public AtomicSql {
        if (sql.dialect() == SqlDialect.H2) {
            throw new IllegalArgumentException("No asynchronous atomic mode on H2");
        }
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

        /** MariaDB's lock wait: whole seconds, rounded up (0: no wait). */
        long seconds() {
            return (Math.max(0, Math.min(Integer.MAX_VALUE, left().toMillis())) + 999) / 1000;
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

    /**
     * Opens the transaction. PostgreSQL's statements are all sent at once, with the reservation
     * after them (the session runs them in order; the Vert.x client pipelines them: one round trip).
     */
    private CompletionStage<Void> begin(SqlSession s, Request r) {
        if (!postgres()) {
            return s.execute(sql.lockWait(r.seconds(), true))
                    .thenCompose(v -> s.execute(sql.sql("readCommittedNext")))
                    .thenCompose(v -> s.execute("START TRANSACTION"));
        }
        String begin = "BEGIN ISOLATION LEVEL READ COMMITTED";
        Map<String, Object> settings = new HashMap<>();
        settings.put("lock_timeout", r.lockTimeout());
        // A handler that hangs must not hold the row lock and the connection forever.
        settings.put("idle_timeout", Math.max(1, r.lease().toMillis()) + "ms");
        if (tenantSetting != null) {
            settings.put("tenant_setting", tenantSetting);
            settings.put("tenant", r.key().tenant());
        }
        CompletionStage<Void> opened = s.execute(statementTimeoutMillis == 0 ? begin
                : begin + "; " + sql.localStatementTimeout(statementTimeoutMillis, true));
        return then(opened, s.query(tenantSetting == null ? "atomicSettings" : "atomicSettingsWithTenant",
                settings, row -> null));
    }

    /** One reservation statement in the transaction: {@code null} when won, the live record in the way when lost. */
    private CompletionStage<IdempotencyRecord> reserve(SqlSession s, Request r, int attempt) {
        CompletionStage<Void> setUp;
        if (attempt == 1) {
            setUp = begin(s, r);
        } else if (postgres()) {
            // The restore after the first attempt gave the session's limits back: bound this one again.
            setUp = then(statementTimeoutMillis == 0 ? done()
                    : s.execute(sql.localStatementTimeout(statementTimeoutMillis, false)),
                    s.query("atomicLockTimeout", Map.of("lock_timeout", r.lockTimeout()), row -> null));
        } else {
            setUp = s.execute(sql.lockWait(r.seconds(), false));
        }
        Function<SqlSession.Row, SqlReserve.Found> mapping =
                row -> SqlReserve.found(sql.dialect(), r.key(), r.ownerToken(), row);
        CompletionStage<List<SqlReserve.Found>> reserved;
        if (postgres()) {
            CompletionStage<List<SqlReserve.Found>> rows =
                    s.query(attempt == 1 ? "atomicReserveFresh" : "atomicReserve", r.row(), mapping);
            String restore = statementTimeoutMillis == 0 ? "restoreLockTimeout" : "restoreLockAndStatementTimeout";
            CompletionStage<Void> restored = s.execute(sql.sql(restore));
            reserved = setUp.thenCompose(v -> rows).thenCompose(list -> restored.thenApply(v -> list));
        } else {
            reserved = setUp.thenCompose(v -> s.query("upsert", r.row(), mapping));
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
            return settle(s.execute("ROLLBACK").thenCompose(v -> holder(s, r)), CompletableFuture::completedFuture,
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
        return s.execute(sql.sql("restoreLockWait"))
                .thenCompose(v -> s.execute(sql.sql("readUncommittedNext")))
                .thenCompose(v -> s.query("find", values, row -> Records.read(r.key(), row)))
                .thenApply(rows -> Records.holderOf(rows.stream().findFirst(), r.fingerprint(), r.now()));
    }

    /** ROLLBACK (whatever it says), the session's settings given back, the connection closed. */
    private CompletionStage<Void> end(SqlSession s) {
        return quietly(s.execute("ROLLBACK"))
                .thenCompose(v -> postgres() ? done() : quietly(s.execute(sql.sql("restoreLockWait"))))
                .thenCompose(v -> s.close());
    }

    static CompletionStage<Void> quietly(CompletionStage<Void> stage) {
        return stage.exceptionally(failure -> null);
    }

    /** {@code first}, then {@code second}'s outcome; both already sent. */
    private static CompletionStage<Void> then(CompletionStage<Void> first, CompletionStage<?> second) {
        return first.thenCompose(v -> second).thenApply(v -> null);
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
