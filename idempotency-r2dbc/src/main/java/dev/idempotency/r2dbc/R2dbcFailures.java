package dev.idempotency.r2dbc;

import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import dev.idempotency.sql.SqlConnections.SqlError;
import dev.idempotency.sql.SqlOutages;
import io.r2dbc.spi.R2dbcException;
import io.r2dbc.spi.R2dbcNonTransientResourceException;
import io.r2dbc.spi.R2dbcTimeoutException;
import java.io.IOException;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;

/**
 * Which R2DBC failures the engine answers 503 for: {@link SqlOutages} on R2DBC's exceptions.
 *
 * <table>
 *   <caption>What counts as which</caption>
 *   <tr><th>reason</th><th>recognised by</th></tr>
 *   <tr><td>all three</td><td>an {@link R2dbcException}'s SQLSTATE and vendor code, as
 *       {@link dev.idempotency.sql.SqlErrors#outageOf} reads them (42P01 naming the table, 3F000, 42S02 and 1146:
 *       NOT_PROVISIONED; class 08, 57P01–57P03: UNREACHABLE; 57014, 55P03, 53300, 70100, 1205,
 *       1969, 3024: BUSY)</td></tr>
 *   <tr><td>UNREACHABLE</td><td>an {@link IOException} anywhere in the causes (connection refused,
 *       reset or closed: Netty's are {@code IOException}s), {@link UnknownHostException}, an
 *       {@link R2dbcNonTransientResourceException} without a SQLSTATE</td></tr>
 *   <tr><td>BUSY</td><td>{@link R2dbcTimeoutException} or {@link TimeoutException}: r2dbc-pool's
 *       {@code maxAcquireTime} ran out, or a statement's time did</td></tr>
 * </table>
 */
final class R2dbcFailures {

    private static final SqlOutages OUTAGES = new SqlOutages(R2dbcFailures::error, R2dbcFailures::other);

    /** The SQLSTATE, vendor code and message of {@code t} when it is an {@link R2dbcException}, else {@code null}. */
    static SqlError error(Throwable t) {
        return t instanceof R2dbcException e ? new SqlError(e.getSqlState(), e.getErrorCode(), e.getMessage()) : null;
    }

    private R2dbcFailures() {
    }

    /** The {@link StorageUnavailableException} {@code failure} amounts to, or {@code failure} itself. */
    static Throwable translate(Throwable failure, String tableName) {
        return OUTAGES.translate(failure, tableName);
    }

    private static Reason other(Throwable t) {
        if (t instanceof R2dbcNonTransientResourceException e && e.getSqlState() == null
                || t instanceof IOException || t instanceof UnknownHostException) {
            return Reason.UNREACHABLE;
        }
        return t instanceof R2dbcTimeoutException || t instanceof TimeoutException ? Reason.BUSY : null;
    }
}
