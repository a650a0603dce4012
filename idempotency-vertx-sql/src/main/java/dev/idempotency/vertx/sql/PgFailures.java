package dev.idempotency.vertx.sql;

import dev.idempotency.core.store.StorageUnavailableException.Reason;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.sql.SqlErrors;
import io.vertx.core.VertxException;
import io.vertx.core.http.ConnectionPoolTooBusyException;
import io.vertx.sqlclient.ClosedConnectionException;
import io.vertx.sqlclient.DatabaseException;
import java.io.IOException;
import java.net.UnknownHostException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * Which failures of the Vert.x SQL Client the engine answers 503 for: the same classification as
 * idempotency-jdbc's {@code SqlFailures} for PostgreSQL, on Vert.x's exceptions.
 *
 * <table>
 *   <caption>What counts as which</caption>
 *   <tr><th>reason</th><th>recognised by</th></tr>
 *   <tr><td>NOT_PROVISIONED</td><td>the SQLSTATEs of {@link SqlErrors#outageOf} (as for every other
 *       reason): 42P01 naming the store's table, 3F000, 42703 naming {@code caller}</td></tr>
 *   <tr><td>UNREACHABLE</td><td>class 08, 57P01–57P03; {@link ClosedConnectionException}; an {@link IOException} anywhere in the
 *       causes (connection refused or reset: Netty's are {@code ConnectException}s and
 *       {@code IOException}s), {@link UnknownHostException}</td></tr>
 *   <tr><td>BUSY</td><td>the pool's wait for a connection ran out ({@value #POOL_TIMEOUT} from a
 *       statement on the pool, {@value #ACQUIRE_TIMEOUT} from {@code getConnection()},
 *       {@link TimeoutException}) or its
 *       wait queue is full ({@link ConnectionPoolTooBusyException}); 57014 (the store's
 *       {@linkplain PgStore.Builder#statementTimeout statement timeout} or the session's), 55P03
 *       (outside the atomic reservation, which answers that itself), 53300</td></tr>
 * </table>
 */
final class PgFailures {

    /**
     * What the pool fails with when no connection came free within its {@code connectionTimeout}:
     * a plain {@link VertxException} (a shared instance inside the client), told apart by its message.
     */
    static final String POOL_TIMEOUT = "Timeout waiting for connection";
    /**
     * What {@code Pool.getConnection()} (and so {@code withTransaction}, the atomic mode and every
     * bounded statement) fails with when no connection came free within the pool's
     * {@code connectionTimeout}: a {@code NoStackTraceThrowable} (a {@link VertxException}) with
     * this message (vertx-sql-client 5.0, {@code SqlConnectionPool.acquire}).
     */
    static final String ACQUIRE_TIMEOUT = "Timeout";

    private PgFailures() {
    }

    /** The {@link StorageUnavailableException} {@code failure} amounts to, or {@code failure} itself. */
    static Throwable translate(Throwable failure, String tableName) {
        Throwable cause = unwrap(failure);
        if (cause instanceof StorageUnavailableException) {
            return cause;
        }
        Reason reason = reasonOf(cause, tableName.substring(tableName.lastIndexOf('.') + 1));
        if (reason == null) {
            return cause;
        }
        String message = SqlErrors.outageMessage(reason, tableName,
                reason == Reason.NOT_PROVISIONED && inChain(cause, PgFailures::lacksCaller),
                reason == Reason.UNREACHABLE ? String.valueOf(cause) : cause.getMessage());
        return new StorageUnavailableException(reason, message, cause);
    }

    /** The SQLSTATE of {@code failure}, or {@code null}. */
    static String sqlState(Throwable failure) {
        return unwrap(failure) instanceof DatabaseException db ? db.getSqlState() : null;
    }

    static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static boolean inChain(Throwable failure, Predicate<Throwable> test) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
            if (test.test(t)) {
                return true;
            }
        }
        return false;
    }

    static Reason reasonOf(Throwable failure, String tableName) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
            Reason reason = classify(t, tableName);
            if (reason != null) {
                return reason;
            }
        }
        return null;
    }

    /** Whether {@code t} is the failure of a statement on a table that predates the caller column. */
    private static boolean lacksCaller(Throwable t) {
        return t instanceof DatabaseException db && SqlErrors.lacksCaller(db.getSqlState(), db.getMessage());
    }

    private static Reason classify(Throwable t, String tableName) {
        if (t instanceof DatabaseException db) {
            return SqlErrors.outageOf(db.getSqlState(), 0, db.getMessage(), tableName);
        }
        if (t instanceof ClosedConnectionException || t instanceof IOException || t instanceof UnknownHostException) {
            return Reason.UNREACHABLE;
        }
        if (t instanceof TimeoutException || t instanceof ConnectionPoolTooBusyException
                || t instanceof VertxException && (POOL_TIMEOUT.equals(t.getMessage())
                        || ACQUIRE_TIMEOUT.equals(t.getMessage()))) {
            return Reason.BUSY;
        }
        return null;
    }
}
