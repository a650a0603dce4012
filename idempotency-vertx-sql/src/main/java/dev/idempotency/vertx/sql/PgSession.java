package dev.idempotency.vertx.sql;

import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlConnections;
import dev.idempotency.sql.SqlSession;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/** {@link SqlSession} on one {@link SqlConnection} of the Vert.x pool: the catalog's statements as {@code $n}. */
record PgSession(SqlConnection connection, SqlCatalog sql) implements SqlSession {

    /** The pool's connections; a database error's SQLSTATE. */
    static SqlConnections connections(Pool pool, SqlCatalog sql) {
        return new SqlConnections() {
            @Override
            public CompletionStage<SqlSession> open() {
                return pool.getConnection().<SqlSession>map(c -> new PgSession(c, sql)).toCompletionStage();
            }

            @Override
            public SqlError error(Throwable failure) {
                return PgFailures.error(failure);
            }
        };
    }

    @Override
    public <T> CompletionStage<List<T>> query(String name, Map<String, ?> values, Function<Row, T> mapping) {
        return PgStore.query(connection, sql.numberedCasts(name), values).map(rows -> Rows.map(rows, mapping))
                .toCompletionStage();
    }

    @Override
    public CompletionStage<Long> update(String name, Map<String, ?> values) {
        return PgStore.query(connection, sql.numberedCasts(name), values).map(rows -> (long) rows.rowCount())
                .toCompletionStage();
    }

    @Override
    public CompletionStage<Void> execute(String text) {
        return connection.query(text).execute().<Void>mapEmpty().toCompletionStage();
    }

    /** {@code BEGIN} and the set-up in one message. */
    @Override
    public CompletionStage<Void> begin(String setUp) {
        return execute("BEGIN ISOLATION LEVEL READ COMMITTED" + (setUp == null ? "" : "; " + setUp));
    }

    @Override
    public CompletionStage<Void> close() {
        return connection.close().otherwiseEmpty().toCompletionStage();
    }

    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        return type == SqlConnection.class || type == SqlClient.class ? Optional.of(type.cast(connection))
                : Optional.empty();
    }
}
