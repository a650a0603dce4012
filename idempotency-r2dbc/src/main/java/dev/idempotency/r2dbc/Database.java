package dev.idempotency.r2dbc;

import dev.idempotency.jdbc.internal.MariaDbSql;
import dev.idempotency.jdbc.internal.PostgresSql;
import dev.idempotency.jdbc.internal.SchemaCheck;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.R2dbcException;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Row;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What the two databases do their own way: which of idempotency-jdbc's statements run, how a
 * statement is bounded by the statement timeout, how times are bound and read, and how a
 * reservation's row tells that it won.
 */
abstract sealed class Database {

    /** One statement: its text, the parameter name of each placeholder, the Java type each is bound as. */
    record Sql(String text, List<String> parameters, List<Class<?>> types) {
    }

    /** {@link R2dbcStore.Builder#statementTimeout} in milliseconds; 0: no bound. */
    final long timeoutMillis;
    final Sql find;
    /** The optimistic insert; {@link #insertReturnsRow()} tells how it reports a write. */
    final Sql insertCompleted;
    final Sql complete;
    final Sql release;
    final Sql renew;
    final Sql purge;
    /** One row holding every column of the table (idempotency-jdbc's schema check, read off a row). */
    final String columnsProbe;
    /** The schema check's verdicts, in idempotency-jdbc's words. */
    final SchemaCheck.Verdicts verdicts;

    private Database(long timeoutMillis, Sql find, Sql insertCompleted, Sql complete, Sql release, Sql renew, Sql purge,
                     String columnsProbe, SchemaCheck.Verdicts verdicts) {
        this.timeoutMillis = timeoutMillis;
        this.find = find;
        this.insertCompleted = insertCompleted;
        this.complete = complete;
        this.release = release;
        this.renew = renew;
        this.purge = purge;
        this.columnsProbe = columnsProbe;
        this.verdicts = verdicts;
    }

    static Database of(R2dbcStore.Dialect dialect, String tableName, long timeoutMillis) {
        return switch (dialect) {
            case POSTGRESQL -> new Postgres(PostgresSql.forTable(tableName), timeoutMillis);
            case MARIADB -> new MariaDb(MariaDbSql.forTable(tableName), timeoutMillis);
        };
    }

    /** The reservation statement of attempt {@code attempt} (0 first). */
    abstract Sql reservation(int attempt);

    /** Whether a row the reservation statement returned is the row {@code ownerToken} wrote. */
    abstract boolean won(Row row, String ownerToken);

    /** True: the insert returns the row as it stands (judged by {@link #won}); false: it reports a count. */
    abstract boolean insertReturnsRow();

    /**
     * Creates the table if missing and adds the caller to one from before it (idempotency-jdbc's
     * DDL), serialized between instances, on {@code c}.
     */
    abstract Mono<Void> createTable(Connection c);

    /** The text that runs {@code sql} under the statement timeout (when it can carry the bound itself). */
    abstract String text(Sql sql);

    /** {@code statement} on {@code c}, inside whatever the statement timeout needs around it. */
    abstract <T> Mono<T> around(Connection c, Mono<T> statement);

    /** {@code batch}, a purge batch on {@code c}, under whatever keeps instances' batches apart; its count. */
    Mono<Long> purging(Connection c, Mono<Long> batch) {
        return batch;
    }

    /** Puts a connection whose call was cancelled back in order before it goes back to the pool. */
    abstract Mono<Void> afterCancel(Connection c);

    /** {@code instant} as the driver binds the table's time columns. */
    abstract Object time(Instant instant);

    /** The class a {@code null} time is bound as. */
    abstract Class<?> timeType();

    /** A time column of {@code row}, or {@code null}. */
    abstract Instant instant(Row row, String column);

    /**
     * Runs {@code sql}, statements without parameters, and drains their results; fails with an
     * error, not with a notice ({@link Result#getRowsUpdated()} raises only errors).
     */
    static Mono<Void> drain(Connection c, String sql) {
        return Flux.from(c.createStatement(sql).execute()).concatMap(Result::getRowsUpdated).then();
    }

    /**
     * PostgreSQL: the statements of {@link PostgresSql}; the bound is PostgreSQL's own
     * {@code statement_timeout}, set transaction-local in the statement's transaction
     * ({@code BEGIN} and the setting in one simple-protocol message, the statement, {@code COMMIT}),
     * so none of the application's statements on the pooled connection is bounded by it.
     */
    static final class Postgres extends Database {
        private final PostgresSql sql;
        private final Sql reserveFresh;
        private final Sql reserve;
        /**
         * The DDL for each state the table may be found in ({@link #ddl(boolean, boolean)}), read
         * from idempotency-jdbc's resources here: not on the connection's event loop.
         */
        private final List<List<String>> ddl;

        Postgres(PostgresSql sql, long timeoutMillis) {
            super(timeoutMillis, of(sql.find()), of(sql.insertCompleted()), of(sql.complete()), of(sql.release()),
                    of(sql.renew()), of(sql.purge()), sql.columnsRowProbe(), sql);
            this.sql = sql;
            reserveFresh = of(sql.reserveFresh());
            reserve = of(sql.reserve());
            ddl = List.of(sql.ddl(false, false, null), sql.ddl(false, true, null), sql.ddl(true, false, null),
                    sql.ddl(true, true, null));
        }

        /** {@link PostgresSql#ddl} for a table that is {@code present} or not, that {@code hasCaller} or not. */
        private List<String> ddl(boolean present, boolean hasCaller) {
            return ddl.get((present ? 2 : 0) + (hasCaller ? 1 : 0));
        }

        static Sql of(PostgresSql.Statement s) {
            return new Sql(s.sql(), s.parameters(), s.types());
        }

        /** idempotency-jdbc's PostgreSQL statements, for the atomic mode ({@link PostgresAtomicReservations}). */
        PostgresSql statements() {
            return sql;
        }

        /** The fresh-key statement first; the take-over statement when it settled nothing. */
        @Override
        Sql reservation(int attempt) {
            return attempt == 0 ? reserveFresh : reserve;
        }

        @Override
        boolean won(Row row, String ownerToken) {
            return Boolean.TRUE.equals(row.get("won", Boolean.class));
        }

        @Override
        boolean insertReturnsRow() {
            return false;
        }

        /** In one transaction after the DDL lock, as {@code PgStore}: what runs depends on the table found. */
        @Override
        Mono<Void> createTable(Connection c) {
            Mono<Void> created = drain(c, sql.ddlLock())
                    .then(Flux.from(c.createStatement(sql.tableState()).bind(0, sql.renderedTable()).execute())
                            .concatMap(result -> result.map((row, metadata) -> ddl(
                                    Boolean.TRUE.equals(row.get("present", Boolean.class)),
                                    Boolean.TRUE.equals(row.get("caller", Boolean.class)))))
                            .next())
                    .flatMapMany(Flux::fromIterable)
                    .concatMap(statement -> drain(c, statement))
                    .then(Mono.from(c.commitTransaction()));
            return Mono.from(c.beginTransaction()).then(created)
                    .onErrorResume(failure -> Mono.from(c.rollbackTransaction()).onErrorResume(rollback -> Mono.empty())
                            .then(Mono.error(failure)));
        }

        @Override
        String text(Sql statement) {
            return statement.text();
        }

        /** After a failure the transaction is rolled back; a cancelled call's connection too, before it goes back. */
        @Override
        <T> Mono<T> around(Connection c, Mono<T> statement) {
            if (timeoutMillis == 0) {
                return statement;
            }
            return drain(c, "BEGIN; " + PostgresSql.localStatementTimeout(timeoutMillis))
                    .then(statement.map(Optional::of).defaultIfEmpty(Optional.empty()))
                    .flatMap(value -> drain(c, "COMMIT").thenReturn(value))
                    .flatMap(Mono::justOrEmpty)
                    .onErrorResume(failure -> drain(c, "ROLLBACK")
                            .onErrorResume(rollback -> {
                                failure.addSuppressed(rollback);
                                return Mono.empty();
                            })
                            .then(Mono.error(failure)));
        }

        /** A call cancelled inside {@link #around}'s transaction leaves it open: roll it back. */
        @Override
        Mono<Void> afterCancel(Connection c) {
            return timeoutMillis == 0 ? Mono.empty() : drain(c, "ROLLBACK").onErrorResume(failure -> Mono.empty());
        }

        @Override
        Object time(Instant instant) {
            return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
        }

        @Override
        Class<?> timeType() {
            return OffsetDateTime.class;
        }

        @Override
        Instant instant(Row row, String column) {
            OffsetDateTime value = row.get(column, OffsetDateTime.class);
            return value == null ? null : value.toInstant();
        }
    }

    /**
     * MariaDB: the statements of {@link MariaDbSql}; the reservation is one upsert returning the
     * row, won when it holds this attempt's owner token. The bound is MariaDB's own
     * {@code max_statement_time}, set for the one statement ({@code SET STATEMENT … FOR}).
     */
    static final class MariaDb extends Database {
        private static final Logger log = LoggerFactory.getLogger(R2dbcStore.class);

        private final MariaDbSql sql;
        /** The DDL, read from idempotency-jdbc's resources here: not on the connection's event loop. */
        private final List<String> ddl;
        /** Whether the server has named locks; without them (Galera), batches run without the purge lock. */
        private volatile boolean namedLocks = true;

        MariaDb(MariaDbSql sql, long timeoutMillis) {
            super(timeoutMillis, of(sql.find()), of(sql.upsert()), of(sql.complete()), of(sql.release()),
                    of(sql.renew()), of(sql.purge()), sql.columnsRowProbe(), sql);
            this.sql = sql;
            this.ddl = sql.ddl();
        }

        private static Sql of(MariaDbSql.Statement s) {
            return new Sql(s.sql(), s.parameters(), s.types());
        }

        /** The upsert, also the optimistic insert. */
        @Override
        Sql reservation(int attempt) {
            return insertCompleted;
        }

        @Override
        boolean won(Row row, String ownerToken) {
            return ownerToken.equals(row.get("owner_token", String.class));
        }

        @Override
        boolean insertReturnsRow() {
            return true;
        }

        /** Under a named lock of the session; every statement of the DDL may run again. */
        @Override
        Mono<Void> createTable(Connection c) {
            Mono<Void> unlock = drain(c, sql.ddlUnlock());
            return Mono.usingWhen(drain(c, sql.ddlLock()).thenReturn(c),
                    locked -> Flux.fromIterable(ddl).concatMap(statement -> drain(c, statement)).then(),
                    locked -> unlock, (locked, failure) -> unlock, locked -> unlock);
        }

        @Override
        String text(Sql statement) {
            return timeoutMillis == 0 ? statement.text() : MariaDbSql.bounded(statement.text(), timeoutMillis);
        }

        @Override
        <T> Mono<T> around(Connection c, Mono<T> statement) {
            return statement;
        }

        @Override
        Mono<Void> afterCancel(Connection c) {
            return Mono.empty();
        }

        /**
         * Under {@code JdbcStore}'s purge lock, taken without waiting and released after the batch:
         * while another instance purges the table, this one deletes nothing and answers 0.
         */
        @Override
        Mono<Long> purging(Connection c, Mono<Long> batch) {
            if (!namedLocks) {
                return batch;
            }
            Mono<Boolean> release = namedLock(c, sql.releasePurgeLock());
            return namedLock(c, sql.takePurgeLock())
                    .onErrorResume(failure -> failure instanceof R2dbcException e && MariaDbSql.lacksNamedLocks(e.getErrorCode()),
                            failure -> {
                                namedLocks = false;
                                log.info("The database has no named locks (a Galera cluster): purges of several instances"
                                        + " may wait for each other's rows, one bounded batch at a time");
                                return Mono.empty();
                            })
                    .flatMap(taken -> taken ? batch.flatMap(count -> release.thenReturn(count))
                            .onErrorResume(failure -> release.onErrorResume(e -> Mono.empty()).then(Mono.error(failure)))
                            : Mono.just(0L))
                    .switchIfEmpty(Mono.defer(() -> namedLocks ? Mono.just(0L) : batch));
        }

        /** {@code SELECT GET_LOCK(…)} or {@code RELEASE_LOCK(…)} for this table: whether it answered 1. */
        private Mono<Boolean> namedLock(Connection c, String call) {
            return Flux.from(c.createStatement(call).bind(0, sql.purgeLockName()).execute())
                    .concatMap(result -> result.map((row, metadata) -> Long.valueOf(1).equals(row.get(0, Long.class))))
                    .next()
                    .defaultIfEmpty(false);
        }

        @Override
        Object time(Instant instant) {
            return LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
        }

        @Override
        Class<?> timeType() {
            return LocalDateTime.class;
        }

        @Override
        Instant instant(Row row, String column) {
            LocalDateTime value = row.get(column, LocalDateTime.class);
            return value == null ? null : value.toInstant(ZoneOffset.UTC);
        }
    }
}
