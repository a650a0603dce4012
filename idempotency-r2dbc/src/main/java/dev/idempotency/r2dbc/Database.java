package dev.idempotency.r2dbc;

import dev.idempotency.sql.Ddl;
import dev.idempotency.sql.Placeholders.Sql;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlDialect;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Row;
import java.util.List;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What the two databases do their own way: which of the catalog's statements run, how a
 * statement is bounded by the statement timeout, how times are bound and read, and how a
 * reservation's row tells that it won.
 */
abstract sealed class Database {

    /** {@link R2dbcStore.Builder#statementTimeout} in milliseconds; 0: no bound. */
    final long timeoutMillis;
    final Sql find;
    /** The optimistic insert; {@link #insertReturnsRow()} tells how it reports a write. */
    final Sql insertCompleted;
    final Sql complete;
    final Sql release;
    final Sql renew;
    final Sql purge;
    /** One row holding every column of the table (the schema check, read off a row). */
    final String columnsProbe;
    final SqlCatalog catalog;

    private Database(SqlCatalog catalog, long timeoutMillis, String insertCompleted) {
        this.catalog = catalog;
        this.timeoutMillis = timeoutMillis;
        this.find = statement("find");
        this.insertCompleted = statement(insertCompleted);
        this.complete = statement("complete");
        this.release = statement("release");
        this.renew = statement("renew");
        this.purge = statement("purge");
        this.columnsProbe = catalog.sql("columnsRowProbe");
    }

    static Database of(R2dbcStore.Dialect dialect, String tableName, long timeoutMillis) {
        return switch (dialect) {
            case POSTGRESQL -> new Postgres(SqlCatalog.of(SqlDialect.POSTGRES, tableName), timeoutMillis);
            case MARIADB -> new MariaDb(SqlCatalog.of(SqlDialect.MARIADB, tableName), timeoutMillis);
        };
    }

    /** The catalog's statement {@code name} with the driver's placeholders. */
    abstract Sql statement(String name);


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

    /** Puts a connection whose call was cancelled back in order before it goes back to the pool. */
    abstract Mono<Void> afterCancel(Connection c);

    /**
     * Runs {@code sql}, statements without parameters, and drains their results; fails with an
     * error, not with a notice ({@link Result#getRowsUpdated()} raises only errors).
     */
    static Mono<Void> drain(Connection c, String sql) {
        return Flux.from(c.createStatement(sql).execute()).concatMap(Result::getRowsUpdated).then();
    }

    /**
     * PostgreSQL: the catalog's statements with {@code $n} placeholders; the bound is PostgreSQL's own
     * {@code statement_timeout}, set transaction-local in the statement's transaction
     * ({@code BEGIN} and the setting in one simple-protocol message, the statement, {@code COMMIT}),
     * so none of the application's statements on the pooled connection is bounded by it.
     */
    static final class Postgres extends Database {
        /**
         * The DDL for each state the table may be found in ({@link #ddl(boolean, boolean)}), read
         * from the DDL resources here: not on the connection's event loop.
         */
        private final List<List<String>> ddl;

        Postgres(SqlCatalog catalog, long timeoutMillis) {
            super(catalog, timeoutMillis, "insertCompleted");
            // Rendered here, not on an event loop at their first use.
            List.of("reserveFresh", "reserve", "atomicSettings", "atomicLockTimeout", "atomicReserveFresh",
                    "atomicReserve", "inFlightProbe").forEach(this::statement);
            ddl = List.of(ddl(false, false), ddl(false, true), ddl(true, false), ddl(true, true));
        }

        private List<String> ddl(boolean present, boolean hasCaller) {
            return Ddl.statements(SqlDialect.POSTGRES, Ddl.scripts(SqlDialect.POSTGRES, present, hasCaller, false),
                    catalog.table(), Ddl.DEFAULT_TENANT_SETTING);
        }

        @Override
        Sql statement(String name) {
            return catalog.numberedCasts(name);
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
            Mono<Void> created = drain(c, catalog.sql("ddlLock"))
                    .then(Flux.from(c.createStatement(statement("tableState").text())
                                    .bind(0, catalog.table().quoted(SqlDialect.POSTGRES)).execute())
                            .concatMap(result -> result.map((row, metadata) -> ddl.get(
                                    (Boolean.TRUE.equals(row.get("present", Boolean.class)) ? 2 : 0)
                                    + (Boolean.TRUE.equals(row.get("caller", Boolean.class)) ? 1 : 0))))
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
            return drain(c, "BEGIN; " + catalog.localStatementTimeout(timeoutMillis, false))
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
    }

    /**
     * MariaDB: the catalog's statements with {@code ?} placeholders; the reservation is one upsert returning the
     * row, won when it holds this attempt's owner token. The bound is MariaDB's own
     * {@code max_statement_time}, set for the one statement ({@code SET STATEMENT … FOR}).
     */
    static final class MariaDb extends Database {

        /** The DDL, read from its resources here: not on the connection's event loop. */
        private final List<String> ddl;

        /** V1 and V4; both may run again, and V4 rebuilds nothing on a table that has the caller already. */
        MariaDb(SqlCatalog catalog, long timeoutMillis) {
            super(catalog, timeoutMillis, "upsert");
            this.ddl = Ddl.statements(SqlDialect.MARIADB, Ddl.scripts(SqlDialect.MARIADB, true, false, false),
                    catalog.table(), Ddl.DEFAULT_TENANT_SETTING);
        }

        @Override
        Sql statement(String name) {
            return catalog.questionMarks(name);
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
            Mono<Void> unlock = drain(c, catalog.sql("ddlUnlock"));
            return Mono.usingWhen(drain(c, catalog.sql("ddlLock")).thenReturn(c),
                    locked -> Flux.fromIterable(ddl).concatMap(statement -> drain(c, statement)).then(),
                    locked -> unlock, (locked, failure) -> unlock, locked -> unlock);
        }

        @Override
        String text(Sql statement) {
            return timeoutMillis == 0 ? statement.text() : SqlCatalog.maxStatementTime(statement.text(), timeoutMillis);
        }

        @Override
        <T> Mono<T> around(Connection c, Mono<T> statement) {
            return statement;
        }

        @Override
        Mono<Void> afterCancel(Connection c) {
            return Mono.empty();
        }
    }
}
