package dev.idempotency.jdbc;

import dev.idempotency.jdbc.internal.SqlFailures;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlConnections;
import dev.idempotency.sql.SqlDialect;
import dev.idempotency.sql.SqlErrors;
import dev.idempotency.sql.SqlReserve;
import dev.idempotency.sql.SqlSession;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;

/**
 * {@link SqlSession} on one JDBC {@link Connection}: each statement runs on the calling thread,
 * so the stages it returns are complete. The store's statements run under its query timeout.
 * In a transaction ({@link #begin}) autocommit is off and the level READ COMMITTED; its end puts
 * the connection back as it was lent. PostgreSQL sends statements given together, and the
 * transaction's isolation with the first of them, as one multi-statement string: one round trip.
 * A transaction begun elsewhere ({@link Owner}: JTA's) is ended by its owner, not by the connection.
 */
final class JdbcSession implements SqlSession {

    /** The store's sessions: its pool, its catalog, its query timeout (0: none). */
    record Sessions(DataSource pool, SqlCatalog catalog, SQLDialect dialect, int timeoutSeconds, boolean returning)
            implements SqlConnections {

        JdbcSession on(Connection connection) {
            return new JdbcSession(connection, this, null);
        }

        /** A session in {@code owner}'s transaction, which the connection takes part in. */
        JdbcSession on(Connection connection, Owner owner) {
            return new JdbcSession(connection, this, owner);
        }

        @Override
        public CompletionStage<SqlSession> open() {
            return call(() -> on(pool.getConnection()));
        }

        @Override
        public SqlError error(Throwable failure) {
            return SqlFailures.error(failure);
        }
    }

    /** The transaction a session takes part in, begun before its connection was taken ({@link JtaSessions}). */
    interface Owner {
        void commit() throws SQLException;

        void rollback() throws SQLException;

        /** What {@link #unwrap} gives besides the connection: the transaction itself. */
        Object transaction();
    }

    private Connection connection;
    /** An {@link Owner}'s transaction ended, and its connection with it: the next statement takes another. */
    private boolean handedBack;
    private final Sessions sessions;
    private final Owner owner;
    private final SqlCatalog catalog;
    private boolean lentAutoCommit = true;
    private Integer lentIsolation;
    private boolean inTransaction;
    /** PostgreSQL: the transaction's isolation, sent with the next statement. */
    private boolean isolationPending;
    private AtomicTransaction transaction;
    private boolean closed;

    private JdbcSession(Connection connection, Sessions sessions, Owner owner) {
        this.connection = connection;
        this.sessions = sessions;
        this.owner = owner;
        this.catalog = sessions.catalog();
    }

    @Override
    public <T> CompletionStage<List<T>> query(String name, Map<String, ?> values, Function<Row, T> mapping) {
        return queryTogether(List.of(name), 0, values, mapping);
    }

    /** PostgreSQL: one multi-statement string; the rows of the {@code rowsAt}-th result set. */
    @Override
    public <T> CompletionStage<List<T>> queryTogether(List<String> names, int rowsAt, Map<String, ?> values,
                                                      Function<Row, T> mapping) {
        if (names.size() > 1 && catalog.dialect() != SqlDialect.POSTGRES) {
            return SqlSession.super.queryTogether(names, rowsAt, values, mapping);
        }
        String name = (isolationPending ? "readCommitted;" : "") + String.join(";", names);
        isolationPending = false;
        return call(() -> {
            try (PreparedStatement ps = prepare(name, values)) {
                boolean rows = ps.execute();
                for (int seen = 0; ; rows = ps.getMoreResults()) {
                    if (rows && seen++ == rowsAt) {
                        try (ResultSet rs = ps.getResultSet()) {
                            return Rows.read(rs, catalog.dialect(), mapping);
                        }
                    }
                    if (!rows && ps.getUpdateCount() == -1) {
                        throw new IllegalStateException("No rows at " + rowsAt + " from " + names);
                    }
                }
            }
        });
    }

    @Override
    public CompletionStage<Long> update(String name, Map<String, ?> values) {
        return call(() -> {
            sendIsolation();
            try (PreparedStatement ps = prepare(name, values)) {
                return (long) ps.executeUpdate();
            }
        });
    }

    @Override
    public CompletionStage<Void> execute(String sql) {
        return call(() -> {
            sendIsolation();
            try (Statement s = connection().createStatement()) {
                s.execute(sql);
            }
            return null;
        });
    }

    /**
     * Autocommit off (an {@link Owner}'s transaction has it off already); READ COMMITTED —
     * PostgreSQL: sent with the next statement; MariaDB/MySQL: for the next transaction; H2: through
     * the driver, put back at the end.
     */
    @Override
    public CompletionStage<Void> begin(String setUp) {
        return call(() -> {
            if (owner == null) {
                lentAutoCommit = connection.getAutoCommit();
                connection.setAutoCommit(false);
            }
            inTransaction = true;
            switch (catalog.dialect()) {
                case POSTGRES -> isolationPending = true;
                case H2 -> {
                    int level = connection().getTransactionIsolation();
                    if (level != Connection.TRANSACTION_READ_COMMITTED) {
                        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                        lentIsolation = level;
                    }
                }
                default -> join(execute(catalog.sql("readCommittedNext")));
            }
            if (setUp != null) {
                join(execute(setUp));
            }
            return null;
        });
    }

    @Override
    public CompletionStage<Void> commit() {
        return call(() -> {
            if (owner == null) {
                connection.commit();
            } else {
                handBack();
                owner.commit();
            }
            return ended();
        });
    }

    @Override
    public CompletionStage<Void> rollback() {
        return call(() -> {
            if (owner == null) {
                connection.rollback();
            } else {
                handBack();
                owner.rollback();
            }
            return ended();
        });
    }

    /**
     * PostgreSQL: the statement and the COMMIT in one string ({@code completeAndCommit},
     * {@code releaseAndCommit}). {@code completeAndCommit} fails on purpose, before its COMMIT, when
     * its UPDATE found no row: then ROLLBACK, and 0. An {@link Owner}'s transaction is ended by it.
     */
    @Override
    public CompletionStage<Long> updateAndEnd(String name, Map<String, ?> values, boolean onlyOne) {
        if (catalog.dialect() != SqlDialect.POSTGRES || owner != null) {
            return SqlSession.super.updateAndEnd(name, values, onlyOne);
        }
        return call(() -> {
            try (PreparedStatement ps = prepare(name + "AndCommit", values)) {
                ps.execute(); // pgJDBC reads every result before it returns: a failed COMMIT throws here
                long changed = onlyOne ? 1 : ps.getUpdateCount();
                ended();
                return changed;
            } catch (SQLException e) {
                if (onlyOne && SqlErrors.isReservationGone(e.getSQLState(), e.getMessage())) {
                    connection.rollback();
                    ended();
                    return 0L;
                }
                throw e;
            }
        });
    }

    /**
     * The reserve mode's reservation statement {@code name} ({@link SqlReserve#statement}):
     * PostgreSQL's own, with {@code asynchronousCommit} its variant that commits without waiting for
     * the WAL flush; elsewhere the {@link #upsert}.
     */
    CompletionStage<List<SqlReserve.Found>> reserve(String name, Map<String, ?> values,
                                                    Function<Row, SqlReserve.Found> mapping, boolean asynchronousCommit) {
        return catalog.dialect() != SqlDialect.POSTGRES ? upsert(values, mapping)
                : query(asynchronousCommit ? name + "AsynchronousCommit" : name, values, mapping);
    }

    /** MySQL, H2: the upsert, then the row read back; H2's lost race for a new key (23505) reads nothing. */
    @Override
    public <T> CompletionStage<List<T>> upsert(Map<String, ?> values, Function<Row, T> mapping) {
        if (sessions.returning()) {
            return query("upsert", values, mapping);
        }
        return call(() -> {
            try (PreparedStatement ps = prepare("upsert", values)) {
                ps.execute();
            } catch (SQLException e) {
                if (SqlErrors.isUniqueViolation(e.getSQLState())) {
                    return List.of();
                }
                throw e;
            }
            return join(query("readBack", values, mapping));
        });
    }

    /** H2: the level set through the driver and put back. */
    @Override
    public <T> CompletionStage<T> readUncommitted(Supplier<CompletionStage<T>> read) {
        if (catalog.dialect() != SqlDialect.H2) {
            return SqlSession.super.readUncommitted(read);
        }
        return call(() -> {
            int level = connection().getTransactionIsolation();
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_UNCOMMITTED);
            try {
                return join(read.get());
            } finally {
                connection.setTransactionIsolation(level);
            }
        });
    }

    /** Rolls back a transaction still open, puts the connection back as lent, returns it to the pool. */
    @Override
    public CompletionStage<Void> close() {
        if (closed) {
            return CompletableFuture.completedFuture(null);
        }
        closed = true;
        if (transaction != null) {
            transaction.close();
        }
        try {
            if (inTransaction && !connection.isClosed()) {
                join(rollback());
            }
        } catch (SQLException | RuntimeException e) {
            // The pool resets the connection, or discards a broken one.
        }
        try {
            connection.close(); // the one taken after an owner's transaction ended, if any
        } catch (SQLException e) {
            // already gone
        }
        return CompletableFuture.completedFuture(null);
    }

    /**
     * In the atomic mode's transaction: {@link AtomicTransaction}, {@link Connection}, {@link DSLContext},
     * the {@link DataSource} the connection came from, and an {@link Owner} and its transaction; nothing once closed.
     */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        if (closed) {
            return Optional.empty();
        }
        if (transaction == null) {
            transaction = new AtomicTransaction(connection, sessions.dialect());
        }
        Object found = type == AtomicTransaction.class ? transaction
                : type == Connection.class ? transaction.connection()
                : type == DSLContext.class ? transaction.dsl()
                : type == DataSource.class ? sessions.pool()
                : owner == null ? null
                : type.isInstance(owner) ? owner : owner.transaction();
        return Optional.ofNullable(type.isInstance(found) ? type.cast(found) : null);
    }

    SqlDialect dialect() {
        return catalog.dialect();
    }

    /** Ends the connection at once: the pool discards it. */
    @Override
    public CompletionStage<Void> abort() {
        return call(() -> {
            connection.abort(Runnable::run);
            return null;
        });
    }

    private Void ended() throws SQLException {
        inTransaction = false;
        isolationPending = false;
        if (owner != null) {
            lentIsolation = null; // the pool resets what the transaction changed as the connection returns
            return null;
        }
        if (connection.getAutoCommit() != lentAutoCommit) {
            connection.setAutoCommit(lentAutoCommit);
        }
        if (lentIsolation != null) {
            connection.setTransactionIsolation(lentIsolation);
            lentIsolation = null;
        }
        return null;
    }

    private void sendIsolation() throws SQLException {
        if (isolationPending) {
            isolationPending = false;
            try (Statement s = connection().createStatement()) {
                s.execute(catalog.sql("readCommitted"));
            }
        }
    }

    /** Statement {@code name} prepared with its values bound by name, under the query timeout. */
    private PreparedStatement prepare(String name, Map<String, ?> values) throws SQLException {
        return Rows.prepare(connection(), catalog.questionMarks(name), catalog.dialect(), values, sessions.timeoutSeconds());
    }

    /**
     * Closes the connection before its {@link Owner}'s transaction ends (the pool keeps it enlisted
     * until then, and would otherwise close it itself, warning): a statement after the end takes another.
     */
    private void handBack() {
        handedBack = true;
        try {
            connection.close();
        } catch (SQLException e) {
            // the transaction's end returns it to the pool, or discards it
        }
    }

    private Connection connection() throws SQLException {
        if (handedBack) {
            handedBack = false;
            connection = sessions.pool().getConnection();
        }
        return connection;
    }

    interface Work<T> {
        T run() throws SQLException;
    }

    /** {@code work}, run now, as a complete stage: its value, or its {@link SQLException}. */
    static <T> CompletionStage<T> call(Work<T> work) {
        try {
            return CompletableFuture.completedFuture(work.run());
        } catch (Rows.ColumnFailure e) {
            return CompletableFuture.failedFuture(e.getCause());
        } catch (CompletionException e) {
            return CompletableFuture.failedFuture(e.getCause() != null ? e.getCause() : e);
        } catch (SQLException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The value of a complete stage; its {@link SQLException} or runtime failure thrown as it is. */
    static <T> T join(CompletionStage<T> stage) throws SQLException {
        try {
            return stage.toCompletableFuture().join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SQLException sql) {
                throw sql;
            }
            throw cause instanceof RuntimeException runtime ? runtime : e;
        }
    }
}
