package dev.idempotency.vertx.sql;

import dev.idempotency.core.store.AbstractAsyncReservation;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.sql.Records;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The atomic mode's reservation: an open READ COMMITTED transaction on one {@link SqlConnection}
 * that holds the in-flight row. The handler writes through {@link #connection()} (reached from
 * the engine's execution as {@code execution.unwrap(SqlConnection.class)}); {@link #complete}
 * stores the response and commits the handler's writes with it, {@link #release} deletes the row
 * and commits the handler's writes, {@link #abort} rolls everything back. Each finish gives the
 * connection back to the pool.
 *
 * <p>The handler must not commit, roll back or close the connection itself, nor call
 * {@code begin()} on it: the transaction is this reservation's.
 */
public final class PgAtomicReservation extends AbstractAsyncReservation {

    private static final Logger log = LoggerFactory.getLogger(PgAtomicReservation.class);

    private final PgStore store;
    private final SqlConnection connection;

    PgAtomicReservation(PgStore store, SqlConnection connection, RecordKey key, String ownerToken) {
        super(key, ownerToken);
        this.store = store;
        this.connection = connection;
    }

    /** The connection whose transaction holds the reservation: the handler's writes go here. */
    public SqlConnection connection() {
        return connection;
    }

    /**
     * The completion's UPDATE, then COMMIT when it found the row; when it did not (only this
     * transaction can see the row, so the handler removed or changed it) ROLLBACK and {@code false}.
     */
    @Override
    protected CompletionStage<Boolean> doComplete(StoredResponse response) {
        return finish(c -> PgStore.query(c, store.sql.numberedCasts("complete"),
                        Records.completeValues(key(), ownerToken(), response))
                .compose(rows -> rows.rowCount() == 1
                        ? c.query("COMMIT").execute().map(true)
                        : c.query("ROLLBACK").execute().map(false)));
    }

    /** The release's DELETE, then COMMIT whatever it found: the handler's writes stay. */
    @Override
    protected CompletionStage<Boolean> doRelease() {
        return finish(c -> PgStore.query(c, store.sql.numberedCasts("release"), Records.ownerValues(key(), ownerToken()))
                .compose(rows -> c.query("COMMIT").execute().map(rows.rowCount() == 1)));
    }

    /** ROLLBACK: neither the handler's writes nor the reservation remain. */
    @Override
    protected CompletionStage<Void> doAbort() {
        return finish(c -> c.query("ROLLBACK").execute().<Void>mapEmpty());
    }

    /** The lease's UPDATE inside the transaction (nobody else can see the row). */
    @Override
    protected CompletionStage<Boolean> doRenew(Instant now, Duration lease) {
        return store.stage(store.renew(connection, key(), ownerToken(), now, lease));
    }

    /** {@link SqlConnection} (or {@link SqlClient}) gives {@link #connection()}; this class gives itself. */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        if (type.isInstance(this)) {
            return Optional.of(type.cast(this));
        }
        if (type == SqlConnection.class || type == SqlClient.class) {
            return Optional.of(type.cast(connection));
        }
        return Optional.empty();
    }

    /** Runs the finish (the base class lets it run once); on failure rolls back what is left; always gives the connection back. */
    private <T> CompletionStage<T> finish(Function<SqlConnection, Future<T>> work) {
        Future<T> done = work.apply(connection)
                .recover(failure -> connection.query("ROLLBACK").execute()
                        .transform(rolledBack -> Future.<T>failedFuture(failure)))
                .andThen(result -> connection.close().onFailure(e -> log.debug(
                        "Could not return the connection of the atomic reservation of key_preview={}: {}",
                        key().keyPreview(), e.toString())));
        return store.stage(done);
    }
}
