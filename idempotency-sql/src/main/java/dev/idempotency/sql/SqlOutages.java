package dev.idempotency.sql;

import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import dev.idempotency.sql.SqlConnections.SqlError;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Which failures of a SQL store are outages, the engine's 503s, for every client: a store names its
 * driver's database errors (read by {@link SqlErrors#outageOf}) and what its other failures mean (a
 * pool timeout, a closed connection); this walks the causes and builds the
 * {@link StorageUnavailableException}.
 *
 * <p>The reason is NOT_PROVISIONED when any cause says so, else the deepest cause's (a pool timeout
 * over a refused connection is UNREACHABLE). The message's detail is the message of the cause that
 * told the reason, or its {@code toString()} when it has none.
 */
public final class SqlOutages {

    private final Function<Throwable, SqlError> errors;
    private final Function<Throwable, Reason> others;
    private final UnaryOperator<Throwable> next;

    /**
     * @param errors the database error a throwable is, or {@code null}
     * @param others the outage a throwable means beyond its SQLSTATE and code, or {@code null}
     */
    public SqlOutages(Function<Throwable, SqlError> errors, Function<Throwable, Reason> others) {
        this(errors, others, t -> null);
    }

    /**
     * @param next the failure reported after a throwable besides its cause (JDBC's
     *             {@code SQLException.getNextException()}), or {@code null}; a link whose own reason is
     *             {@code null} takes the first of these that has one
     */
    public SqlOutages(Function<Throwable, SqlError> errors, Function<Throwable, Reason> others,
                      UnaryOperator<Throwable> next) {
        this.errors = errors;
        this.others = others;
        this.next = next;
    }

    /** {@code failure} without the {@link CompletionException}s around it. */
    public static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** {@code failure} {@linkplain #unwrap unwrapped}: the {@link StorageUnavailableException} it amounts to, or itself. */
    public Throwable translate(Throwable failure, String tableLabel) {
        Throwable cause = unwrap(failure);
        StorageUnavailableException outage = outage(cause, tableLabel);
        return outage == null ? cause : outage;
    }

    /**
     * The {@link StorageUnavailableException} {@code failure} amounts to, its cause {@code failure}
     * ({@code failure} itself when it is one), or {@code null} when it is no outage.
     *
     * @param tableLabel the table as the message names it, maybe schema-qualified
     */
    public StorageUnavailableException outage(Throwable failure, String tableLabel) {
        if (failure instanceof StorageUnavailableException already) {
            return already;
        }
        Found found = find(failure, tableLabel.substring(tableLabel.lastIndexOf('.') + 1));
        if (found == null) {
            return null;
        }
        String detail = found.source().getMessage() != null ? found.source().getMessage() : found.source().toString();
        return new StorageUnavailableException(found.reason(), SqlErrors.outageMessage(found.reason(), tableLabel,
                found.reason() == Reason.NOT_PROVISIONED && found.lacksCaller(), detail), failure);
    }

    /**
     * The outage {@code failure} reports, or {@code null}.
     *
     * @param tableName the table's own name (no schema)
     */
    public Reason reasonOf(Throwable failure, String tableName) {
        Found found = find(failure, tableName);
        return found == null ? null : found.reason();
    }

    /** What the causes say: the reason, the cause that told it, whether any is {@link SqlErrors#lacksCaller}. */
    private record Found(Reason reason, Throwable source, boolean lacksCaller) {
    }

    private Found find(Throwable failure, String tableName) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Found found = null;
        boolean lacksCaller = false;
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            SqlError error = errors.apply(t);
            lacksCaller |= error != null && SqlErrors.lacksCaller(error.sqlState(), error.message());
            if (found == null || found.reason() != Reason.NOT_PROVISIONED) {
                Found here = link(t, error, tableName);
                found = here == null ? found : here;
            }
        }
        return found == null ? null : new Found(found.reason(), found.source(), lacksCaller);
    }

    /** The reason of one cause, else of the first of its {@link #next} failures that has one. */
    private Found link(Throwable t, SqlError error, String tableName) {
        Reason reason = reason(t, error, tableName);
        if (reason != null) {
            return new Found(reason, t, false);
        }
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable n = next.apply(t); n != null && seen.add(n); n = next.apply(n)) {
            reason = reason(n, errors.apply(n), tableName);
            if (reason != null) {
                return new Found(reason, n, false);
            }
        }
        return null;
    }

    private Reason reason(Throwable t, SqlError error, String tableName) {
        Reason reason = error == null ? null : SqlErrors.outageOf(error.sqlState(), error.code(), error.message(), tableName);
        return reason != null ? reason : others.apply(t);
    }
}
