package dev.idempotency.r2dbc;

import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import dev.idempotency.sql.SqlErrors;
import io.r2dbc.spi.R2dbcException;
import io.r2dbc.spi.R2dbcNonTransientResourceException;
import io.r2dbc.spi.R2dbcTimeoutException;
import java.io.IOException;
import java.net.UnknownHostException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

/**
 * Which R2DBC failures the engine answers 503 for: the classification of idempotency-jdbc's
 * {@code SqlFailures}, on R2DBC's exceptions.
 *
 * <table>
 *   <caption>What counts as which</caption>
 *   <tr><th>reason</th><th>recognised by</th></tr>
 *   <tr><td>all three</td><td>an {@link R2dbcException}'s SQLSTATE and vendor code, as
 *       {@link SqlFailures#outageOf} reads them (42P01 naming the table, 3F000, 42S02 and 1146:
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

    private R2dbcFailures() {
    }

    /** The {@link StorageUnavailableException} {@code failure} amounts to, or {@code failure} itself. */
    static Throwable translate(Throwable failure, String tableName) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof StorageUnavailableException) {
            return cause;
        }
        Reason reason = reasonOf(cause, baseName(tableName));
        if (reason == null) {
            return cause;
        }
        return new StorageUnavailableException(reason, SqlErrors.outageMessage(reason, tableName,
                reason == Reason.NOT_PROVISIONED && lacksCaller(cause), detail(cause)), cause);
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

    private static Reason classify(Throwable t, String tableName) {
        if (t instanceof R2dbcException r2dbc) {
            Reason reason = SqlErrors.outageOf(r2dbc.getSqlState(), r2dbc.getErrorCode(), r2dbc.getMessage(), tableName);
            if (reason != null) {
                return reason;
            }
            if (t instanceof R2dbcNonTransientResourceException && r2dbc.getSqlState() == null) {
                return Reason.UNREACHABLE;
            }
        }
        if (t instanceof IOException || t instanceof UnknownHostException) {
            return Reason.UNREACHABLE;
        }
        if (t instanceof R2dbcTimeoutException || t instanceof TimeoutException) {
            return Reason.BUSY;
        }
        return null;
    }

    private static boolean lacksCaller(Throwable failure) {
        return failure instanceof R2dbcException r2dbc && SqlErrors.lacksCaller(r2dbc.getSqlState(), r2dbc.getMessage());
    }

    /** What the driver said: the message of the failure, or of its first cause that has one. */
    private static String detail(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getMessage() != null) {
                return t.getMessage();
            }
        }
        return failure.toString();
    }

    private static String baseName(String tableName) {
        return tableName.substring(tableName.lastIndexOf('.') + 1);
    }
}
