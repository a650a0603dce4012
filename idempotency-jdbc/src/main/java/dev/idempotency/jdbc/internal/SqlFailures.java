package dev.idempotency.jdbc.internal;

import dev.idempotency.core.store.StorageUnavailableException.Reason;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.sql.SqlConnections.SqlError;
import dev.idempotency.sql.SqlErrors;
import dev.idempotency.sql.SqlOutages;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import org.jooq.exception.DataAccessException;

/**
 * Tells a missing table and an unreachable database apart from every other failure, so the
 * engine can answer 503 for them: {@link SqlOutages} on JDBC's exceptions, the SQLSTATEs and vendor
 * codes of {@link SqlErrors#outageOf} (also of each {@link SQLException#getNextException()}), and besides
 *
 * <table>
 *   <caption>What counts as which</caption>
 *   <tr><th>reason</th><th>recognised by</th></tr>
 *   <tr><td>UNREACHABLE</td><td>{@link SQLNonTransientConnectionException}, and a {@link ConnectException},
 *       {@link NoRouteToHostException}, {@link UnknownHostException} or
 *       {@link SocketTimeoutException} anywhere in the causes (also behind a pool timeout)</td></tr>
 *   <tr><td>BUSY</td><td>{@link SQLTransientConnectionException} (the pool's connection timeout)
 *       with no connection failure behind it; a {@link SQLTimeoutException} (JDBC's query timeout)</td></tr>
 * </table>
 * <p>Internal, not API: may change without notice.
 */
public final class SqlFailures {

    private static final SqlOutages OUTAGES = new SqlOutages(
            SqlFailures::error,
            SqlFailures::other, t -> t instanceof SQLException sql ? sql.getNextException() : null);

    /** {@code t}'s SQLSTATE, vendor code and message when it is an {@link SQLException}, else {@code null}. */
    public static SqlError error(Throwable t) {
        return t instanceof SQLException sql ? new SqlError(sql.getSQLState(), sql.getErrorCode(), sql.getMessage()) : null;
    }

    private SqlFailures() {
    }

    /**
     * The {@link StorageUnavailableException} {@code failure} amounts to; otherwise {@code failure}
     * itself, a checked one wrapped in jOOQ's unchecked {@link DataAccessException}.
     */
    public static RuntimeException translate(Exception failure, String tableName) {
        StorageUnavailableException outage = OUTAGES.outage(failure, tableName);
        if (outage != null) {
            return outage;
        }
        if (failure instanceof RuntimeException runtime) {
            return runtime;
        }
        return new DataAccessException("Idempotency store statement failed: " + failure.getMessage(), failure);
    }

    /** The reason behind {@code failure}, or {@code null} when it is neither kind of outage. */
    static Reason reasonOf(Throwable failure, String tableName) {
        return OUTAGES.reasonOf(failure, tableName);
    }

    /** A pool timeout is BUSY unless a connection failure behind it, deeper in the causes, says UNREACHABLE. */
    private static Reason other(Throwable t) {
        if (t instanceof SQLNonTransientConnectionException || t instanceof ConnectException
                || t instanceof NoRouteToHostException || t instanceof UnknownHostException
                || t instanceof SocketTimeoutException) {
            return Reason.UNREACHABLE;
        }
        return t instanceof SQLTransientConnectionException || t instanceof SQLTimeoutException ? Reason.BUSY : null;
    }
}
