package dev.idempotency.r2dbc;

import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.sql.AtomicSql;
import dev.idempotency.sql.Ddl;
import dev.idempotency.sql.NewRow;
import dev.idempotency.sql.Placeholders;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SchemaCheck;
import dev.idempotency.sql.SqlConnections;
import dev.idempotency.sql.SqlPurge;
import dev.idempotency.sql.SqlReservation;
import dev.idempotency.sql.SqlReserve;
import dev.idempotency.sql.StatementTimeouts;
import dev.idempotency.sql.TableName;
import io.r2dbc.spi.ColumnMetadata;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Row;
import io.r2dbc.spi.RowMetadata;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Idempotency records in PostgreSQL or MariaDB through R2DBC: the {@link AsyncStore} face over the
 * application's {@link ConnectionFactory} (typically an r2dbc-pool {@code ConnectionPool}). Same
 * table ({@code idempotency_keys}, idempotency-sql's migrations) and the same statements as
 * {@code JdbcStore} — idempotency-sql's catalog, rendered with the driver's placeholders — so the
 * stores can share a table.
 *
 * Each primitive is one statement on a connection of the factory, bounded by the
 * {@linkplain Builder#statementTimeout statement timeout}; times are the engine's. Outages (a
 * missing table, a lost connection, a pool that found no connection in time, a timeout) complete
 * with {@link StorageUnavailableException} ({@link R2dbcFailures}). The atomic mode holds the
 * reservation in a transaction of its own connection, which the handler's writes share.
 */
public final class R2dbcStore implements AsyncStore {

    private static final Logger log = LoggerFactory.getLogger(R2dbcStore.class);

    public static final String DEFAULT_TABLE = Ddl.DEFAULT_TABLE;
    /** The default {@linkplain Builder#statementTimeout statement timeout}, as {@code JdbcStore}'s. */
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

    /** The databases this store speaks, by the name their R2DBC driver reports. */
    public enum Dialect {
        /** r2dbc-postgresql: {@code ConnectionFactoryMetadata.getName()} is {@code PostgreSQL}. */
        POSTGRESQL,
        /** r2dbc-mariadb: {@code ConnectionFactoryMetadata.getName()} is {@code MariaDB}. */
        MARIADB;

        /**
         * The dialect of a driver's {@code ConnectionFactoryMetadata} name.
         *
         * @throws IllegalArgumentException for any other database
         */
        public static Dialect ofDriverName(String name) {
            String lower = String.valueOf(name).toLowerCase(Locale.ROOT);
            if (lower.contains("postgres")) {
                return POSTGRESQL;
            }
            if (lower.contains("mariadb")) {
                return MARIADB;
            }
            throw new IllegalArgumentException("Unsupported R2DBC database '" + name
                    + "': the store speaks PostgreSQL and MariaDB (set Builder.dialect for a wrapping factory)");
        }
    }

    private final ConnectionFactory factory;
    private final Database db;
    private final SqlPurge purge;
    private final String tableLabel;
    private final Dialect dialect;
    /** The atomic mode's attempts. */
    private final AtomicSql atomic;

    private R2dbcStore(Builder b) {
        this.factory = b.factory;
        this.dialect = b.dialect != null ? b.dialect : Dialect.ofDriverName(b.factory.getMetadata().getName());
        this.tableLabel = b.tableName;
        this.db = Database.of(dialect, b.tableName, StatementTimeouts.millisRoundedUp(b.statementTimeout));
        SqlConnections connections = R2dbcSession.connections(this, db);
        this.purge = new SqlPurge(db.catalog, connections);
        this.atomic = new AtomicSql(db.catalog, connections, null, db.timeoutMillis,
                failure -> R2dbcFailures.translate(failure, tableLabel), SqlReservation::new);
    }

    /** A store on {@code factory} with every default, its dialect from the factory's metadata. */
    public static R2dbcStore create(ConnectionFactory factory) {
        return builder(factory).build();
    }

    public static Builder builder(ConnectionFactory factory) {
        return new Builder(factory);
    }

    /** The table, as configured. */
    public String tableName() {
        return tableLabel;
    }

    public Dialect dialect() {
        return dialect;
    }

    /**
     * Creates the table and its index if missing and adds the caller to a table from before it
     * (V4), serialized between instances; for development and tests (production schemas belong in
     * migrations). Reads no resource on the event loop.
     */
    public CompletionStage<Void> createTableIfMissing() {
        return stage(connected(db::createTable)
                .doOnSuccess(done -> log.info("Idempotency table {} is in place", tableLabel)));
    }

    /**
     * Checks that the table exists and has every column the store uses ({@code JdbcStore.verifySchema()}'s
     * probe and messages): compose the application's start after it.
     *
     * @return a stage that fails with {@link IllegalStateException} naming the missing table (its
     *         cause then a {@link StorageUnavailableException} {@code NOT_PROVISIONED}, as
     *         {@code JdbcStore}'s) or columns, or with {@link StorageUnavailableException} when the
     *         database cannot be reached
     */
    public CompletionStage<Void> verifySchema() {
        Mono<Void> checked = connected(c -> Flux.from(c.createStatement(db.columnsProbe).execute())
                .concatMap(result -> result.map((row, metadata) -> metadata.getColumnMetadatas().stream()
                        .map(ColumnMetadata::getName).toList()))
                .collectList())
                .onErrorMap(failure -> {
                    Throwable translated = R2dbcFailures.translate(failure, tableLabel);
                    return translated instanceof StorageUnavailableException unavailable
                            && unavailable.reason() == StorageUnavailableException.Reason.NOT_PROVISIONED
                            ? SchemaCheck.missingTable(tableLabel, db.catalog.dialect(), unavailable) : translated;
                })
                .doOnNext(rows -> {
                    SchemaCheck.requireColumns(tableLabel, db.catalog.dialect(), rows.isEmpty() ? List.of() : rows.get(0));
                    log.debug("Idempotency table {} has every column the store uses", tableLabel);
                })
                .then();
        return checked.toFuture();
    }

    @Override
    public CompletionStage<AsyncReserveResult> reserve(RecordKey key, String fingerprint, String ownerToken,
                                                       Instant now, Duration lease, Duration ttl) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(ownerToken, "ownerToken");
        Instant at = Records.micros(now);
        Map<String, Object> row = Records.rowValues(new NewRow(key, fingerprint, Records.IN_FLIGHT,
                ownerToken, Records.micros(now.plus(lease)), null, Records.micros(now.plus(ttl)), at), at);
        return stage(Mono.fromCompletionStage(SqlReserve.reserve(this, db.catalog.dialect(), key, ownerToken, at,
                (name, mapping) -> connected(c -> db.around(c, execute(c, db.statement(name), key, row)
                        .concatMap(result -> result.map((r, m) -> mapping.apply(Rows.columns(r, db))))
                        .collectList())).toFuture())));
    }

    /**
     * One atomic reservation attempt in a fresh transaction on a connection of the factory, its
     * lock wait bounded by {@code wait} ({@code lock_timeout} on PostgreSQL,
     * {@code innodb_lock_wait_timeout} on MariaDB); a won reservation keeps the connection and its
     * transaction until it is finished, and {@code unwrap(Connection.class)} /
     * {@code unwrap(ConnectionFactory.class)} give them to the handler.
     */
    /** The atomic mode's attempt: {@link #attemptInTransaction}. */
    @Override
    public Optional<Atomic> atomic() {
        return Optional.of(this::attemptInTransaction);
    }

    CompletionStage<AtomicAttempt<AsyncReservation>> attemptInTransaction(RecordKey key, String fingerprint,
                                                                                 String ownerToken, Instant now,
                                                                                 Duration lease, Duration ttl,
                                                                                 Duration wait) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(ownerToken, "ownerToken");
        return stage(Mono.fromCompletionStage(atomic.attempt(key, fingerprint, ownerToken, now, lease, ttl, wait)));
    }

    @Override
    public CompletionStage<Boolean> releaseIfOwned(RecordKey key, String ownerToken) {
        return stage(release(key, ownerToken));
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> find(RecordKey key, Instant now) {
        Objects.requireNonNull(key, "key");
        Map<String, Object> values = Records.keyValues(key);
        values.put("now", Records.micros(now));
        return stage(query(db.find, key, values, (r, m) -> Rows.read(key, r, db)).map(Optional::of)
                .defaultIfEmpty(Optional.empty()));
    }

    @Override
    public CompletionStage<Boolean> insertCompleted(RecordKey key, String fingerprint, StoredResponse response,
                                                    Instant now, Duration ttl) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(response, "response");
        Instant at = Records.micros(now);
        String token = UUID.randomUUID().toString();
        Map<String, Object> row = Records.rowValues(new NewRow(key, fingerprint, Records.COMPLETED, token,
                null, response, Records.micros(now.plus(ttl)), at), at);
        Mono<Boolean> stored = db.insertReturnsRow()
                ? query(db.insertCompleted, key, row, (r, m) -> db.won(r, token)).defaultIfEmpty(false)
                : update(db.insertCompleted, key, row).map(count -> count == 1);
        return stage(stored);
    }

    /** One bounded batch, in expiry order. */
    @Override
    public CompletionStage<Integer> purgeExpired(Instant now, int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, was " + limit);
        }
        Map<String, Object> values = Map.of("now", Records.micros(now), "limit", limit);
        return stage(connected(c -> db instanceof Database.Postgres ? db.around(c, rowsUpdated(c, db.purge, null, values))
                : Mono.fromCompletionStage(() -> purge.batch(R2dbcSession.on(this, db, c), now, limit)))
                .map(Long::intValue));
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, String ownerToken, StoredResponse response) {
        return stage(update(db.complete, key, Records.completeValues(key, ownerToken, response)).map(n -> n == 1));
    }

    Mono<Boolean> release(RecordKey key, String ownerToken) {
        Map<String, Object> values = Records.keyValues(key);
        values.put("owner_token", ownerToken);
        return update(db.release, key, values).map(n -> n == 1);
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
        Map<String, Object> values = Records.keyValues(key);
        values.put("owner_token", ownerToken);
        values.put("locked_until", Records.micros(now.plus(lease)));
        return stage(update(db.renew, key, values).map(n -> n == 1));
    }

    /** The first row {@code sql} returns, mapped while it is readable; empty when none. */
    private <T> Mono<T> query(Placeholders.Sql sql, RecordKey key, Map<String, ?> values,
                              BiFunction<Row, RowMetadata, T> mapping) {
        return connected(c -> db.around(c, execute(c, sql, key, values)
                .concatMap(result -> result.map(mapping))
                .collectList()
                .flatMap(rows -> Mono.justOrEmpty(rows.isEmpty() ? null : rows.get(0)))));
    }

    /** How many rows {@code sql} changed. */
    private Mono<Long> update(Placeholders.Sql sql, RecordKey key, Map<String, ?> values) {
        return connected(c -> db.around(c, rowsUpdated(c, sql, key, values)));
    }

    Mono<Long> rowsUpdated(Connection c, Placeholders.Sql sql, RecordKey key, Map<String, ?> values) {
        return execute(c, sql, key, values).concatMap(Result::getRowsUpdated).reduce(0L, Long::sum);
    }

    /** {@code sql} with {@code values}, created and sent only when subscribed: after what {@link Database#around} runs first. */
    Flux<Result> execute(Connection c, Placeholders.Sql sql, RecordKey key, Map<String, ?> values) {
        return Flux.defer(() -> Flux.<Result>from(Rows.bind(c.createStatement(db.text(sql)), db, sql, values).execute()));
    }

    /** {@code work} on a connection of the factory, closed (given back to the pool) however it ends. */
    private <T> Mono<T> connected(Function<Connection, Mono<T>> work) {
        return Mono.usingWhen(Mono.from(factory.create()), work, c -> c.close(), (c, failure) -> c.close(),
                c -> db.afterCancel(c).then(Mono.from(c.close())));
    }

    ConnectionFactory factory() {
        return factory;
    }

    /** The call as a stage, its outages as {@link StorageUnavailableException}. */
    <T> CompletionStage<T> stage(Mono<T> call) {
        return call.onErrorMap(failure -> R2dbcFailures.translate(failure, tableLabel)).toFuture();
    }

    @Override
    public String toString() {
        return "R2dbcStore[" + dialect + ", table=" + tableLabel + "]";
    }

    /** Options of an {@link R2dbcStore}. */
    public static final class Builder {
        private final ConnectionFactory factory;
        private Dialect dialect;
        private String tableName = DEFAULT_TABLE;
        private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;

        private Builder(ConnectionFactory factory) {
            this.factory = Objects.requireNonNull(factory, "connectionFactory");
        }

        /** The database; by default the one the factory's metadata names ({@link Dialect#ofDriverName}). */
        public Builder dialect(Dialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /** The table, optionally qualified ({@code app.idempotency_keys}); quoted as given. */
        public Builder tableName(String tableName) {
            TableName.of(tableName); // validates
            this.tableName = tableName;
            return this;
        }

        /**
         * How long each of the store's statements may run, lock waits included, before the database
         * cancels it and the request is answered 503 busy; in milliseconds (rounded up). PostgreSQL:
         * a transaction-local {@code statement_timeout}; MariaDB: {@code SET STATEMENT
         * max_statement_time=… FOR} the statement; neither touches the session. {@link Duration#ZERO}:
         * the session's own. Default {@link #DEFAULT_STATEMENT_TIMEOUT}.
         *
         * @throws IllegalArgumentException when negative
         */
        public Builder statementTimeout(Duration statementTimeout) {
            this.statementTimeout = StatementTimeouts.checked(statementTimeout);
            return this;
        }

        /**
         * The store.
         *
         * @throws IllegalArgumentException when no dialect is set and the factory's is not supported
         */
        public R2dbcStore build() {
            return new R2dbcStore(this);
        }
    }
}
