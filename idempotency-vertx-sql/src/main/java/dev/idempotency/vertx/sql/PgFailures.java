package dev.idempotency.vertx.sql;

import dev.idempotency.core.store.StorageUnavailableException.Reason;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.sql.SqlConnections.SqlError;
import dev.idempotency.sql.SqlErrors;
import dev.idempotency.sql.SqlOutages;
import io.vertx.core.VertxException;
import io.vertx.core.http.ConnectionPoolTooBusyException;
import io.vertx.sqlclient.ClosedConnectionException;
import io.vertx.sqlclient.DatabaseException;
import java.io.IOException;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;

/**
 * Which failures of the Vert.x SQL Client the engine answers 503 for: {@link SqlOutages} on Vert.x's
 * exceptions.
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

    private static final SqlOutages OUTAGES = new SqlOutages(
            PgFailures::error,
            PgFailures::other);

    /** The SQLSTATE and message of {@code failure} when it is a database error, else {@code null}. */
    static SqlError error(Throwable failure) {
        return SqlOutages.unwrap(failure) instanceof DatabaseException db ? new SqlError(db.getSqlState(), 0, db.getMessage())
                : null;
    }

    private PgFailures() {
    }

    /** The {@link StorageUnavailableException} {@code failure} amounts to, or {@code failure} itself. */
    static Throwable translate(Throwable failure, String tableName) {
        return OUTAGES.translate(failure, tableName);
    }

    /** The SQLSTATE of {@code failure}, or {@code null}. */
    static String sqlState(Throwable failure) {
        return SqlOutages.unwrap(failure) instanceof DatabaseException db ? db.getSqlState() : null;
    }

    /** What the client's own failures mean; a database error (a {@link VertxException} too) only its SQLSTATE. */
    private static Reason other(Throwable t) {
        if (t instanceof DatabaseException) {
            return null;
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
