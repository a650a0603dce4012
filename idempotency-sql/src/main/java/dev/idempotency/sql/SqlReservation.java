package dev.idempotency.sql;

import dev.idempotency.core.store.AbstractAsyncReservation;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The atomic mode's won reservation ({@link AtomicSql}): an open READ COMMITTED transaction on one
 * {@link SqlSession} holding the in-flight row, in which the handler writes ({@link #unwrap}: what
 * the session offers). Each finish gives the connection back to the pool, whatever happens.
 * <ul>
 *   <li>{@link #complete}: the owner-checked UPDATE, then COMMIT — the handler's writes and the
 *       record become visible together; when the UPDATE finds no row (only this transaction can
 *       see it, so the handler removed or changed it), ROLLBACK and {@code false}.</li>
 *   <li>{@link #release}: the DELETE, then COMMIT — the handler's writes stay, no record does.</li>
 *   <li>{@link #abort}: ROLLBACK — neither the handler's writes nor the reservation remain.</li>
 *   <li>{@link #renew}: nothing to send: nobody else can see the uncommitted row, and the
 *       connection is the handler's meanwhile (a JDBC connection must not be used by two threads).</li>
 * </ul>
 * The handler must not commit, roll back or close the connection itself: the transaction is this
 * reservation's.
 */
public class SqlReservation extends AbstractAsyncReservation {

    private final SqlSession session;
    private final UnaryOperator<Throwable> failures;

    public SqlReservation(SqlSession session, RecordKey key, String ownerToken, UnaryOperator<Throwable> failures) {
        super(key, ownerToken);
        this.session = session;
        this.failures = failures;
    }

    @Override
    protected final CompletionStage<Boolean> doComplete(StoredResponse response) {
        return finish(s -> s.update("complete", Records.completeValues(key(), ownerToken(), response))
                .thenCompose(n -> s.execute(n == 1 ? "COMMIT" : "ROLLBACK").thenApply(v -> n == 1)));
    }

    @Override
    protected final CompletionStage<Boolean> doRelease() {
        return finish(s -> s.update("release", Records.ownerValues(key(), ownerToken()))
                .thenCompose(n -> s.execute("COMMIT").thenApply(v -> n == 1)));
    }

    @Override
    protected final CompletionStage<Void> doAbort() {
        return finish(s -> s.execute("ROLLBACK"));
    }

    @Override
    protected final CompletionStage<Boolean> doRenew(Instant now, Duration lease) {
        return CompletableFuture.completedFuture(true);
    }

    /** This reservation, or what the session gives (its connection, its pool); nothing once finished. */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        if (type.isInstance(this)) {
            return Optional.of(type.cast(this));
        }
        return session.unwrap(type);
    }

    /** Runs the finish (the base class lets it run once); on failure rolls back what is left; always closes. */
    private <T> CompletionStage<T> finish(Function<SqlSession, CompletionStage<T>> work) {
        CompletionStage<T> done;
        try {
            done = work.apply(session);
        } catch (RuntimeException e) {
            done = CompletableFuture.failedFuture(e);
        }
        return AtomicSql.settle(done,
                value -> session.close().thenApply(v -> value),
                failure -> AtomicSql.quietly(session.execute("ROLLBACK")).thenCompose(v -> session.close())
                        .thenCompose(v -> CompletableFuture.<T>failedFuture(failures.apply(failure))));
    }
}
