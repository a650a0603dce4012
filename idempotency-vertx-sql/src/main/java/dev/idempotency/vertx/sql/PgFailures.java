package dev.idempotency.vertx.sql;

import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import io.vertx.core.VertxException;
import io.vertx.core.http.ConnectionPoolTooBusyException;
import io.vertx.sqlclient.ClosedConnectionException;
import io.vertx.sqlclient.DatabaseException;
import java.io.IOException;
import java.net.UnknownHostException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
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
 *   <tr><td>NOT_PROVISIONED</td><td>SQLSTATE 42P01 (undefined_table) naming the store's table,
 *       3F000 (invalid_schema_name), 42703 (undefined_column) naming {@code caller}: a table
 *       without idempotency-jdbc's {@value #CALLER_MIGRATION}</td></tr>
 *   <tr><td>UNREACHABLE</td><td>SQLSTATE class 08, 57P01–57P03 (shutdown, terminated backend,
 *       starting up); {@link ClosedConnectionException}; an {@link IOException} anywhere in the
 *       causes (connection refused or reset: Netty's are {@code ConnectException}s and
 *       {@code IOException}s), {@link UnknownHostException}</td></tr>
 *   <tr><td>BUSY</td><td>the pool's wait for a connection ran out ({@value #POOL_TIMEOUT} from a
 *       statement on the pool, {@value #ACQUIRE_TIMEOUT} from {@code getConnection()},
 *       {@link TimeoutException}) or its
 *       wait queue is full ({@link ConnectionPoolTooBusyException}); SQLSTATE 57014
 *       (query_canceled: the store's {@linkplain PgStore.Builder#statementTimeout statement timeout}
 *       or the session's), 55P03 (lock_not_available outside the atomic
 *       reservation, which answers that itself), 53300 (too_many_connections)</td></tr>
 * </table>
 */
final class PgFailures {

    static final String UNDEFINED_TABLE = "42P01";
    static final String UNDEFINED_COLUMN = "42703";
    /** The migration that adds the {@code caller} column, in idempotency-jdbc. */
    static final String CALLER_MIGRATION = "db/idempotency/postgresql/V4__idempotency_keys_caller.sql";
    static final String LOCK_NOT_AVAILABLE = "55P03";
    private static final Set<String> MISSING_STATES = Set.of("3F000");
    private static final Set<String> UNREACHABLE_STATES = Set.of("57P01", "57P02", "57P03");
    /** 53300 too_many_connections: the server has no session to spare now; like a full pool, busy. */
    private static final Set<String> BUSY_STATES = Set.of("57014", LOCK_NOT_AVAILABLE, "53300");

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
        String message = switch (reason) {
            case NOT_PROVISIONED -> inChain(cause, PgFailures::lacksCaller)
                    ? "Idempotency table " + tableName + " has no column caller: apply " + CALLER_MIGRATION
                    : "Idempotency table " + tableName + " does not exist: " + cause.getMessage();
            case BUSY -> "Idempotency database busy: " + cause.getMessage();
            case UNREACHABLE -> "Idempotency database unreachable: " + cause;
        };
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
        return t instanceof DatabaseException db && UNDEFINED_COLUMN.equals(db.getSqlState())
                && String.valueOf(db.getMessage()).contains("caller");
    }

    private static Reason classify(Throwable t, String tableName) {
        if (t instanceof DatabaseException db) {
            String state = db.getSqlState() == null ? "" : db.getSqlState();
            if (MISSING_STATES.contains(state) || lacksCaller(db)
                    || UNDEFINED_TABLE.equals(state) && String.valueOf(db.getMessage()).contains(tableName)) {
                return Reason.NOT_PROVISIONED;
            }
            if (state.startsWith("08") || UNREACHABLE_STATES.contains(state)) {
                return Reason.UNREACHABLE;
            }
            return BUSY_STATES.contains(state) ? Reason.BUSY : null;
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
