package dev.idempotency.vertx.sql;

import dev.idempotency.core.store.AsyncReservation;
import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.sql.Ddl;
import dev.idempotency.sql.NewRow;
import dev.idempotency.sql.Placeholders;
import dev.idempotency.sql.AtomicSql;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SchemaCheck;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlDialect;
import dev.idempotency.sql.SqlReserve;
import dev.idempotency.sql.StatementTimeouts;
import dev.idempotency.sql.TableName;
import io.vertx.core.Future;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Idempotency records in PostgreSQL through the reactive Vert.x SQL Client: the
 * {@link AsyncStore} face, with the atomic mode, without a worker pool. Same table ({@code idempotency_keys},
 * idempotency-sql's DDL) and the same statements as {@code JdbcStore} on PostgreSQL — idempotency-sql's
 * catalog, rendered with {@code $n} placeholders ({@link SqlCatalog#numberedCasts}) — so the two
 * stores can share a table.
 *
 * <pre>{@code
 * Pool pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(16).setConnectionTimeout(2))
 *         .connectingTo(new PgConnectOptions().setHost("db").setDatabase("app").setUser("app"))
 *         .using(vertx).build();
 * PgStore store = PgStore.create(pool);
 * IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyConfig.defaults());
 * }</pre>
 *
 * Each primitive is one statement on a pooled connection, one round trip, bounded by the
 * {@linkplain Builder#statementTimeout statement timeout}; stages complete on the connection's
 * event loop. Outages (a missing table, a lost connection, a pool that found no connection in
 * time, a statement or lock timeout) complete with {@link StorageUnavailableException}
 * ({@link PgFailures}). With {@linkplain Builder#rowLevelSecurity row-level security} each call
 * first sets its tenant in its transaction. The atomic mode holds the reservation in a READ
 * COMMITTED transaction on one {@link io.vertx.sqlclient.SqlConnection}, which the handler reaches
 * as {@link PgAtomicReservation#connection()}.
 */
public final class PgStore implements AsyncStore {

    private static final Logger log = LoggerFactory.getLogger(PgStore.class);

    public static final String DEFAULT_TABLE = "idempotency_keys";
    public static final String DEFAULT_TENANT_SETTING = Ddl.DEFAULT_TENANT_SETTING;
    /** The default {@linkplain Builder#statementTimeout(Duration) statement timeout}: 5 seconds. */
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

    /** The longest SQL text the client must cache for this store's statements to stay prepared ({@link #cachingStatements}). */
    public static final int STATEMENT_CACHE_SQL_LIMIT = 8192;

    final Pool pool;
    final SqlCatalog sql;
    final String tableLabel;
    final String tenantSetting;
    /** {@link Builder#statementTimeout} in milliseconds; 0: no bound. */
    final long statementTimeoutMillis;
    private final AtomicSql atomic;

    private PgStore(Builder b) {
        this.pool = b.pool;
        this.sql = SqlCatalog.of(SqlDialect.POSTGRES, b.tableName);
        // Rendered here, not on an event loop at their first use.
        List.of("reserveFresh", "reserve", "find", "insertCompleted", "complete", "release", "renew", "purge",
                "atomicSettings", "atomicSettingsWithTenant", "atomicLockTimeout", "atomicReserveFresh", "atomicReserve",
                "inFlightProbe", "tableState").forEach(sql::numberedCasts);
        this.tableLabel = b.tableName;
        this.tenantSetting = b.rowLevelSecurity ? b.tenantSetting : null;
        this.statementTimeoutMillis = StatementTimeouts.millisRoundedUp(b.statementTimeout);
        this.atomic = new AtomicSql(sql, PgSession.connections(pool, sql), tenantSetting, statementTimeoutMillis,
                failure -> PgFailures.translate(failure, tableLabel),
                (session, key, owner, failures) -> new PgAtomicReservation((PgSession) session, key, owner, failures));
    }

    /**
     * {@code options} with the client's prepared-statement cache on and an SQL limit this store's
     * statements fit in; give the pool these options. Without it the client parses and plans every
     * statement again on each call. The cache belongs to the pool: the store cannot turn it on.
     */
    public static PgConnectOptions cachingStatements(PgConnectOptions options) {
        options.setCachePreparedStatements(true);
        options.setPreparedStatementCacheSqlFilter(
                options.getPreparedStatementCacheSqlFilter().or(sql -> sql.length() < STATEMENT_CACHE_SQL_LIMIT));
        return options;
    }

    /** A store on {@code pool} with every default. */
    public static PgStore create(Pool pool) {
        return builder(pool).build();
    }

    public static Builder builder(Pool pool) {
        return new Builder(pool);
    }

    /** The table, as configured. */
    public String tableName() {
        return tableLabel;
    }

    /**
     * Creates the table and its index if missing, with the policy under row-level security, and
     * adds the caller to a table from before it (V4), in one transaction serialized between
     * instances. For development and tests: production schemas belong in migrations.
     */
    public CompletionStage<Void> createTableIfMissing() {
        Future<Void> done = pool.withTransaction(c -> c.query(sql.sql("ddlLock")).execute()
                .compose(locked -> query(c, sql.numberedCasts("tableState"),
                        Map.of("quoted_table", sql.table().quoted(SqlDialect.POSTGRES))))
                .compose(rows -> {
                    Row state = rows.iterator().next();
                    Future<RowSet<Row>> chain = Future.succeededFuture();
                    List<String> scripts = Ddl.scripts(SqlDialect.POSTGRES, state.getBoolean("present"),
                            state.getBoolean("caller"), tenantSetting != null);
                    for (String ddl : Ddl.statements(SqlDialect.POSTGRES, scripts, sql.table(),
                            tenantSetting == null ? DEFAULT_TENANT_SETTING : tenantSetting)) {
                        chain = chain.compose(previous -> c.query(ddl).execute());
                    }
                    return chain.<Void>mapEmpty();
                }));
        return stage(done.onSuccess(v -> log.info("Idempotency table {} is in place", tableLabel)));
    }

    /**
     * Checks that the table exists and has every column the store uses ({@code JdbcStore.verifySchema()}'s
     * probe and messages), so that a missing migration fails the start: compose the server's start
     * after it.
     *
     * @return a stage that fails with {@link IllegalStateException} naming the missing table or
     *         columns, or with {@link StorageUnavailableException} when the database cannot be reached
     */
    public CompletionStage<Void> verifySchema() {
        Future<Void> checked = pool.query(sql.sql("columnsProbe")).execute()
                .recover(failure -> {
                    Throwable translated = PgFailures.translate(failure, tableLabel);
                    boolean missing = translated instanceof StorageUnavailableException unavailable
                            && unavailable.reason() == StorageUnavailableException.Reason.NOT_PROVISIONED;
                    return Future.failedFuture(missing ? SchemaCheck.missingTable(tableLabel, SqlDialect.POSTGRES, failure) : translated);
                })
                .map(rows -> {
                    SchemaCheck.requireColumns(tableLabel, SqlDialect.POSTGRES, rows.columnsNames());
                    log.debug("Idempotency table {} has every column the store uses", tableLabel);
                    return null;
                });
        return checked.toCompletionStage();
    }

    @Override
    public CompletionStage<AsyncReserveResult> reserve(RecordKey key, String fingerprint, String token,
                                                       Instant now, Duration lease, Duration ttl) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(token, "ownerToken");
        Instant at = Records.micros(now);
        Map<String, Object> row = Records.rowValues(NewRow.inFlight(key, fingerprint, token, now, lease, ttl), at);
        return stage(Future.fromCompletionStage(SqlReserve.reserve(this, SqlDialect.POSTGRES, key, token, at,
                (name, mapping) -> run(key.tenant(), c -> query(c, sql.numberedCasts(name), row))
                        .map(rows -> Rows.map(rows, mapping)).toCompletionStage())));
    }

    /** The release's DELETE: only while the row is in flight under {@code ownerToken}. */
    @Override
    public CompletionStage<Boolean> releaseIfOwned(RecordKey key, String ownerToken) {
        return stage(release(key, ownerToken));
    }

    /** The atomic mode's attempt: {@link #attemptInTransaction}. */
    @Override
    public Optional<Atomic> atomic() {
        return Optional.of(this::attemptInTransaction);
    }

    CompletionStage<AtomicAttempt<AsyncReservation>> attemptInTransaction(
            RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease, Duration ttl,
            Duration wait) {
        return stage(Future.fromCompletionStage(atomic.attempt(key, fingerprint, ownerToken, now, lease, ttl, wait)));
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> find(RecordKey key, Instant now) {
        Objects.requireNonNull(key, "key");
        Map<String, Object> values = Records.keyValues(key);
        values.put("now", Records.micros(now));
        return stage(run(key.tenant(), c -> query(c, sql.numberedCasts("find"), values)).map(rows -> {
            Iterator<Row> it = rows.iterator();
            return it.hasNext() ? Optional.of(Rows.read(key, it.next())) : Optional.empty();
        }));
    }

    @Override
    public CompletionStage<Boolean> insertCompleted(RecordKey key, String fingerprint, StoredResponse response,
                                                    Instant now, Duration ttl) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(response, "response");
        Map<String, Object> row = Records.rowValues(NewRow.completed(key, fingerprint, response, now, ttl),
                Records.micros(now));
        return stage(run(key.tenant(), c -> query(c, sql.numberedCasts("insertCompleted"), row))
                .map(rows -> rows.rowCount() == 1));
    }

    /** One bounded batch; with row-level security only the rows the connecting role may see. */
    @Override
    public CompletionStage<Integer> purgeExpired(Instant now, int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, was " + limit);
        }
        Map<String, Object> values = Map.of("now", Records.micros(now), "limit", limit);
        return stage(run(null, c -> query(c, sql.numberedCasts("purge"), values)).map(RowSet::rowCount));
    }

    @Override
    public CompletionStage<Boolean> complete(RecordKey key, String ownerToken, StoredResponse response) {
        Map<String, Object> values = Records.completeValues(key, ownerToken, response);
        return stage(run(key.tenant(), c -> query(c, sql.numberedCasts("complete"), values)).map(rows -> rows.rowCount() == 1));
    }

    @Override
    public CompletionStage<Boolean> renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
        Map<String, Object> values = Records.renewValues(key, ownerToken, now.plus(lease));
        return stage(run(key.tenant(), c -> query(c, sql.numberedCasts("renew"), values)).map(rows -> rows.rowCount() == 1));
    }

    Future<Boolean> release(RecordKey key, String ownerToken) {
        Map<String, Object> values = Records.ownerValues(key, ownerToken);
        return run(key.tenant(), c -> query(c, sql.numberedCasts("release"), values)).map(rows -> rows.rowCount() == 1);
    }

    static Future<RowSet<Row>> query(SqlClient client, Placeholders.Sql statement, Map<String, ?> values) {
        return client.preparedQuery(statement.text()).execute(Rows.bind(statement, values));
    }

    /**
     * Runs {@code work}, one statement, in a transaction that first bounds it (transaction-local
     * {@code statement_timeout}) and sets the tenant, all pipelined: one round trip. With neither,
     * on the pool as it is.
     */
    private <T> Future<T> run(String tenant, Function<SqlClient, Future<T>> work) {
        boolean withTenant = tenantSetting != null && tenant != null;
        if (!withTenant && statementTimeoutMillis == 0) {
            return work.apply(pool);
        }
        return pool.getConnection().compose(c -> {
            Future<?> begin = c.query(statementTimeoutMillis == 0 ? "BEGIN"
                    : "BEGIN; " + sql.localStatementTimeout(statementTimeoutMillis, false)).execute();
            Future<?> tenantSet = withTenant
                    ? c.preparedQuery("SELECT set_config($1, $2, true)").execute(Tuple.of(tenantSetting, tenant))
                    : Future.succeededFuture();
            Future<T> result = work.apply(c);
            // After a failed statement the transaction is aborted and COMMIT rolls it back, without an error.
            Future<?> commit = c.query("COMMIT").execute();
            return begin.compose(v -> tenantSet).compose(v -> result)
                    .compose(value -> commit.map(value))
                    .eventually(() -> commit.transform(ended -> c.close()));
        });
    }

    /** The future as a stage, its outages as {@link StorageUnavailableException}. */
    <T> CompletionStage<T> stage(Future<T> future) {
        return future.recover(failure -> Future.failedFuture(PgFailures.translate(failure, tableLabel)))
                .toCompletionStage();
    }

    @Override
    public String toString() {
        return "PgStore[table=" + tableLabel + (tenantSetting == null ? "" : ", rls=" + tenantSetting) + "]";
    }

    /** Options of a {@link PgStore}. */
    public static final class Builder {
        private final Pool pool;
        private String tableName = DEFAULT_TABLE;
        private boolean rowLevelSecurity;
        private String tenantSetting = DEFAULT_TENANT_SETTING;
        private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;

        private Builder(Pool pool) {
            this.pool = Objects.requireNonNull(pool, "pool");
        }

        /** The table, optionally schema-qualified ({@code app.idempotency_keys}); quoted as given. */
        public Builder tableName(String tableName) {
            TableName.of(tableName); // validates
            this.tableName = tableName;
            return this;
        }

        /** Whether to set the tenant per transaction for the shipped row-level-security policy. */
        public Builder rowLevelSecurity(boolean rowLevelSecurity) {
            this.rowLevelSecurity = rowLevelSecurity;
            return this;
        }

        /** The custom setting ({@code prefix.name}) the policy reads the tenant from. */
        public Builder tenantSetting(String tenantSetting) {
            this.tenantSetting = Ddl.checkedTenantSetting(tenantSetting);
            return this;
        }

        /**
         * How long each of the store's statements may run, lock waits included, before PostgreSQL
         * cancels it (57014) and the request is answered 503 busy: its own {@code statement_timeout},
         * transaction-local and pipelined before the statement, so the application's statements keep
         * their limits. In milliseconds (rounded up); {@link Duration#ZERO}: the session's own limit.
         * Default {@link #DEFAULT_STATEMENT_TIMEOUT}.
         *
         * @throws IllegalArgumentException when negative
         */
        public Builder statementTimeout(Duration statementTimeout) {
            this.statementTimeout = StatementTimeouts.checked(statementTimeout);
            return this;
        }

        public PgStore build() {
            return new PgStore(this);
        }
    }
}
