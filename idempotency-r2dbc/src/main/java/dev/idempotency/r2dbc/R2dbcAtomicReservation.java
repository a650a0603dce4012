package dev.idempotency.r2dbc;

import dev.idempotency.core.store.AbstractAsyncReservation;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.sql.Records;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * The atomic mode's reservation: an open READ COMMITTED transaction on one R2DBC
 * {@link Connection} of the store's factory, holding the in-flight row. The handler writes through
 * that connection ({@code execution.unwrap(Connection.class)}; the factory it came from is
 * {@code unwrap(ConnectionFactory.class)}). {@link #complete} stores the response and commits the
 * handler's writes with it, {@link #release} deletes the row and commits the handler's writes,
 * {@link #abort} rolls everything back. Each finish closes the connection (gives it back to the
 * pool), whatever happens.
 *
 * <p>The handler must not commit, roll back or close the connection itself: the transaction is
 * this reservation's.
 */
final class R2dbcAtomicReservation extends AbstractAsyncReservation {

    private final R2dbcStore store;
    private final Database db;
    private final Connection connection;

    R2dbcAtomicReservation(R2dbcStore store, Database db, Connection connection, RecordKey key, String ownerToken) {
        super(key, ownerToken);
        this.store = store;
        this.db = db;
        this.connection = connection;
    }

    /**
     * The completion's UPDATE, then COMMIT when it found the row; when it did not (only this
     * transaction can see the row, so the handler removed or changed it) ROLLBACK and {@code false}.
     */
    @Override
    protected CompletionStage<Boolean> doComplete(StoredResponse response) {
        return finish(c -> store.rowsUpdated(c, db.complete, key(), Records.completeValues(key(), ownerToken(), response))
                .flatMap(n -> n == 1 ? Database.drain(c, "COMMIT").thenReturn(true)
                        : Database.drain(c, "ROLLBACK").thenReturn(false)));
    }

    /** The release's DELETE, then COMMIT whatever it found: the handler's writes stay. */
    @Override
    protected CompletionStage<Boolean> doRelease() {
        return finish(c -> store.rowsUpdated(c, db.release, key(), Records.ownerValues(key(), ownerToken()))
                .flatMap(n -> Database.drain(c, "COMMIT").thenReturn(n == 1)));
    }

    /** ROLLBACK: neither the handler's writes nor the reservation remain. */
    @Override
    protected CompletionStage<Void> doAbort() {
        return finish(c -> Database.drain(c, "ROLLBACK"));
    }

    /** The lease's UPDATE inside the transaction (nobody else can see the row). */
    @Override
    protected CompletionStage<Boolean> doRenew(Instant now, Duration lease) {
        Map<String, Object> values = Records.renewValues(key(), ownerToken(), now.plus(lease));
        return store.stage(store.rowsUpdated(connection, db.renew, key(), values).map(n -> n == 1));
    }

    /** {@link Connection} gives the transaction's connection, {@link ConnectionFactory} the store's factory. */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        if (type == Connection.class) {
            return Optional.of(type.cast(connection));
        }
        if (type == ConnectionFactory.class) {
            return Optional.of(type.cast(store.factory()));
        }
        return Optional.empty();
    }


    /** The finish (the base class lets it run once); on failure rolled back; the connection always closed. */
    private <T> CompletionStage<T> finish(Function<Connection, Mono<T>> work) {
        Mono<Void> close = Mono.from(connection.close());
        return store.stage(Mono.usingWhen(Mono.just(connection), work, c -> close,
                (c, failure) -> Database.drain(c, "ROLLBACK").onErrorResume(e -> Mono.empty()).then(close),
                c -> Database.drain(c, "ROLLBACK").onErrorResume(e -> Mono.empty()).then(close)));
    }
}
