package dev.idempotency.r2dbc;

import dev.idempotency.sql.SqlConnections;
import dev.idempotency.sql.SqlSession;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.R2dbcException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import reactor.core.publisher.Mono;

/**
 * {@link SqlSession} on one R2DBC {@link Connection} of the store's factory, in its {@link Database}'s
 * words. A statement sent before the previous one ended runs after it ({@link #inTurn}).
 */
record R2dbcSession(R2dbcStore store, Database db, Connection connection, AtomicReference<CompletableFuture<?>> tail)
        implements SqlSession {

    /** The factory's connections; an {@link R2dbcException}'s SQLSTATE and vendor code. */
    static SqlConnections connections(R2dbcStore store, Database db) {
        return new SqlConnections() {
            @Override
            public CompletionStage<SqlSession> open() {
                return Mono.from(store.factory().create()).<SqlSession>map(c -> on(store, db, c)).toFuture();
            }

            @Override
            public SqlError error(Throwable failure) {
                return R2dbcFailures.error(failure);
            }
        };
    }

    /** A session on {@code connection}, which the caller closes. */
    static R2dbcSession on(R2dbcStore store, Database db, Connection connection) {
        return new R2dbcSession(store, db, connection, new AtomicReference<>(CompletableFuture.completedFuture(null)));
    }

    @Override
    public <T> CompletionStage<List<T>> query(String name, Map<String, ?> values, Function<Row, T> mapping) {
        return inTurn(() -> store.execute(connection, db.statement(name), null, values)
                .concatMap(result -> result.map((row, metadata) -> Optional.ofNullable(mapping.apply(Rows.columns(row, db)))))
                .collectList()
                .map(rows -> rows.stream().map(row -> row.orElse(null)).collect(Collectors.<T>toList())));
    }

    @Override
    public CompletionStage<Long> update(String name, Map<String, ?> values) {
        return inTurn(() -> store.rowsUpdated(connection, db.statement(name), null, values));
    }

    @Override
    public CompletionStage<Void> execute(String sql) {
        return inTurn(() -> Database.drain(connection, sql));
    }

    /** PostgreSQL: {@code BEGIN} and the set-up in one message; MariaDB: READ COMMITTED for the next transaction, then its start. */
    @Override
    public CompletionStage<Void> begin(String setUp) {
        if (db instanceof Database.Postgres) {
            return execute("BEGIN ISOLATION LEVEL READ COMMITTED" + (setUp == null ? "" : "; " + setUp));
        }
        return execute(db.catalog.sql("readCommittedNext")).thenCompose(v -> execute("START TRANSACTION"));
    }

    @Override
    public CompletionStage<Void> close() {
        return inTurn(() -> Mono.from(connection.close()).onErrorResume(failure -> Mono.empty()));
    }

    /** {@code next} once every statement sent before it has ended, however it ended. */
    private <T> CompletionStage<T> inTurn(Supplier<Mono<T>> next) {
        CompletableFuture<T> done = tail.get().handle((v, e) -> null).thenCompose(v -> next.get().toFuture());
        tail.set(done);
        return done;
    }

    /** {@link Connection} gives the transaction's connection, {@link ConnectionFactory} the store's factory. */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        if (type == Connection.class) {
            return Optional.of(type.cast(connection));
        }
        return type == ConnectionFactory.class ? Optional.of(type.cast(store.factory())) : Optional.empty();
    }
}
