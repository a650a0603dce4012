package dev.idempotency.sql;

import dev.idempotency.core.store.AbstractAsyncReservation;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
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

    private static final System.Logger log = System.getLogger(SqlReservation.class.getName());

    private final SqlSession session;
    private final UnaryOperator<Throwable> failures;

    public SqlReservation(SqlSession session, RecordKey key, String ownerToken, UnaryOperator<Throwable> failures) {
        super(key, ownerToken);
        this.session = session;
        this.failures = failures;
    }

    @Override
    protected final CompletionStage<Boolean> doComplete(StoredResponse response) {
        return finish(s -> s.updateAndEnd("complete", Records.completeValues(key(), ownerToken(), response), true)
                .thenApply(n -> {
                    if (n != 1) {
                        log.log(System.Logger.Level.WARNING, "The atomic reservation row of key_preview={0} was gone"
                                + " at completion; rolled back the request''s writes", key().keyPreview());
                    }
                    return n == 1;
                }));
    }

    @Override
    protected final CompletionStage<Boolean> doRelease() {
        return finish(s -> s.updateAndEnd("release", Records.ownerValues(key(), ownerToken()), false)
                .thenApply(n -> n == 1));
    }

    @Override
    protected final CompletionStage<Void> doAbort() {
        return finish(SqlSession::rollback);
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

    /**
     * This reservation as a blocking one, for a session whose stages are complete when returned
     * (JDBC's): each call gives the stage's value, or throws its failure.
     */
    public Reservation blocking() {
        SqlReservation async = this;
        return new Reservation() {
            @Override
            public RecordKey key() {
                return async.key();
            }

            @Override
            public String ownerToken() {
                return async.ownerToken();
            }

            @Override
            public boolean complete(StoredResponse response) {
                return value(async.complete(response));
            }

            @Override
            public boolean release() {
                return value(async.release());
            }

            @Override
            public void abort() {
                value(async.abort());
            }

            @Override
            public boolean renew(Instant now, Duration lease) {
                return value(async.renew(now, lease));
            }

            @Override
            public <T> Optional<T> unwrap(Class<T> type) {
                return async.unwrap(type);
            }
        };
    }

    /** The value of a complete stage; its failure, unwrapped, thrown. */
    static <T> T value(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().join();
        } catch (java.util.concurrent.CompletionException e) {
            Throwable cause = SqlOutages.unwrap(e);
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw e;
        }
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
                failure -> AtomicSql.quietly(session.rollback()).thenCompose(v -> session.close())
                        .thenCompose(v -> CompletableFuture.<T>failedFuture(failures.apply(failure))));
    }
}
