package dev.idempotency.jdbc;

import dev.idempotency.core.store.AtomicAttempt;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.jdbc.internal.Dialects;
import dev.idempotency.jdbc.internal.Schema;
import dev.idempotency.jdbc.internal.SqlFailures;
import dev.idempotency.jdbc.internal.TenantConnections;
import dev.idempotency.sql.AtomicSql;
import dev.idempotency.sql.Ddl;
import dev.idempotency.sql.NewRow;
import dev.idempotency.sql.Records;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlDialect;
import dev.idempotency.sql.SqlReservation;
import dev.idempotency.sql.SqlReserve;
import dev.idempotency.sql.SqlSession;
import dev.idempotency.sql.StatementTimeouts;
import dev.idempotency.sql.TableName;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production {@link Store}: idempotency records in one table of a relational database,
 * reached through a {@link DataSource} (a connection pool such as HikariCP). Its statements are
 * idempotency-sql's for the dialect, run through JDBC; jOOQ names the dialect and joins the
 * application's jOOQ transactions ({@link AtomicTransaction}, {@link SavepointTransactionProvider}). PostgreSQL is the
 * primary target; MariaDB (10.5+), MySQL (8.0.19+) and H2 (2.x) share
 * the same code with each dialect's own atomic upsert.
 *
 * <pre>{@code
 * JdbcStore store = JdbcStore.builder(dataSource).build();   // dialect from the connection
 * store.createTableIfMissing();                               // development only; ship the DDL otherwise
 * IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyConfig.defaults());
 * }</pre>
 *
 * <h2>Behaviour</h2>
 * <ul>
 *   <li>Each primitive is one conditional statement (on MySQL, a reservation adds a primary-key
 *       read; on H2 a lost one does; on PostgreSQL, a take-over of a row no longer live adds the
 *       take-over statement); every statement is in the module's {@code SQL.md}.</li>
 *   <li>Time is the {@code now} the engine passes, bound into the statement and compared there;
 *       the database's clock plays no part. Instants are stored at microsecond precision.</li>
 *   <li>A missing table and an unreachable database (refused connection, pool timeout, broken
 *       connection) are thrown as {@link StorageUnavailableException}; how fast the latter comes
 *       is the pool's {@code connectionTimeout}.</li>
 *   <li>{@link dev.idempotency.core.store.Reservation#complete complete}, {@code release} and
 *       {@code renew} act only while the reservation's owner token is still in the row and the row
 *       is still in flight. A take-over after a lapsed lease always writes a new token, so an old
 *       owner is locked out; an owner whose lease lapsed without a take-over may still finish.</li>
 *   <li>With {@linkplain Builder#rowLevelSecurity(boolean) row-level security} (PostgreSQL), each
 *       call runs in a transaction that first sets the tenant of its record key with
 *       {@code set_config(setting, tenant, true)}.</li>
 *   <li>The engine's atomic mode: {@link #attemptInTransaction} takes a pooled connection, opens a
 *       READ COMMITTED transaction and reserves inside it; the handler writes in the same
 *       transaction ({@link AtomicTransaction}) and the stored response commits with it. A duplicate
 *       of a request still inside its transaction is answered 409 for the same body and 422 for a
 *       different one. See the module's README, "Atomic mode".</li>
 * </ul>
 * Thread-safe; holds no connection between calls, except an atomic reservation, which holds its
 * transaction's connection until it is finished.
 */
public final class JdbcStore implements Store {

    static {
        JooqBanner.switchOff(); // before any jOOQ class that prints the banner initializes
    }

    private static final Logger log = LoggerFactory.getLogger(JdbcStore.class);

    /** The default table name. */
    public static final String DEFAULT_TABLE = Ddl.DEFAULT_TABLE;
    /** The default PostgreSQL setting that carries the tenant for row-level security. */
    public static final String DEFAULT_TENANT_SETTING = Ddl.DEFAULT_TENANT_SETTING;

    /** The default {@linkplain Builder#statementTimeout(Duration) statement timeout}: 5 seconds. */
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

    private final SQLDialect dialect;
    private final String tableLabel;
    private final SqlCatalog catalog;
    private final String tenantSetting;
    private final boolean asynchronousReservationCommit;
    private final JdbcSession.Sessions sessions;
    private final AtomicSql atomic;
    private final TenantConnections connections;
    private final Schema schema;
    private final MariaDbPurge purge;

    private JdbcStore(Builder b, SQLDialect dialect, JdbcSession.Sessions sessions) {
        this.dialect = dialect;
        this.tableLabel = b.tableName.label();
        this.tenantSetting = b.rowLevelSecurity ? b.tenantSetting : null;
        this.asynchronousReservationCommit = b.asynchronousReservationCommit;
        this.sessions = sessions;
        this.catalog = sessions.catalog();
        this.atomic = new AtomicSql(catalog, sessions, tenantSetting, 0,
                failure -> SqlFailures.translate(exception(failure), tableLabel), SqlReservation::new);
        this.connections = new TenantConnections(b.dataSource, tenantSetting, tableLabel);
        this.schema = new Schema(connections, catalog);
        this.purge = catalog.dialect().localTime() ? new MariaDbPurge() : null;
    }

    /** A store over {@code dataSource} with every default. */
    public static JdbcStore create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /** Starts a store over {@code dataSource}; see {@link Builder} for the options. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** The dialect this store speaks (given, or detected from the connection). */
    public SQLDialect dialect() {
        return dialect;
    }

    /** The table this store uses, as configured (for example {@code idempotency_keys} or {@code app.idempotency_keys}). */
    public String tableName() {
        return tableLabel;
    }

    /** Whether each call sets the tenant for a PostgreSQL row-level-security policy. */
    public boolean rowLevelSecurity() {
        return tenantSetting != null;
    }

    /**
     * Whether the reserve mode's reservation commits without waiting for its WAL flush
     * ({@link Builder#asynchronousReservationCommit(boolean)}).
     */
    public boolean asynchronousReservationCommit() {
        return asynchronousReservationCommit;
    }

    /**
     * Creates the table and its index, if missing, from the DDL shipped for this dialect
     * ({@code V1__idempotency_keys.sql}, then {@code V4__idempotency_keys_caller.sql}); on
     * PostgreSQL also sets the fillfactor of a table it creates ({@code V3__idempotency_keys_fillfactor.sql};
     * an existing table's fillfactor is left as its owner set it), and with row-level security on
     * applies the policy. An existing table without the caller column gets {@code V4} once, which
     * rebuilds its primary key. Run as the table's owner. For development and tests: production
     * schemas belong in the application's migrations, from the same resources.
     *
     * @throws StorageUnavailableException when the database cannot be reached
     */
    public void createTableIfMissing() {
        schema.createTableIfMissing();
        log.info("Idempotency table {} is in place ({})", tableLabel, dialect);
    }

    /**
     * Checks that this store's table exists and has every column the store reads and writes, so
     * that a missing migration fails the application's start rather than its first request. Runs
     * one {@code SELECT * FROM <table> WHERE 1 = 0} and compares the result's column names: the
     * table name resolves exactly as in the store's own statements (PostgreSQL's
     * {@code search_path}, a schema- or database-qualified name, quoting). Column types,
     * constraints and the index are not checked. A table without the column {@code caller} misses
     * {@code V4__idempotency_keys_caller.sql}, which the message names. {@link Builder#verifySchema(boolean)}
     * runs it at {@code build()}.
     *
     * @throws IllegalStateException       naming the missing columns, or the missing table (its cause
     *                                     then a {@link StorageUnavailableException} {@code NOT_PROVISIONED})
     * @throws StorageUnavailableException when the database cannot be reached
     */
    public void verifySchema() {
        schema.verify();
        log.debug("Idempotency table {} has every column the store uses", tableLabel);
    }

    /**
     * The classpath resource with this dialect's DDL ({@code V1__idempotency_keys.sql}), for
     * migration tools; the table also needs {@code V4__idempotency_keys_caller.sql} from the same
     * folder, run after it.
     */
    public static String ddlResource(SQLDialect dialect) {
        return Ddl.tableScript(Dialects.sqlDialect(dialect));
    }

    @Override
    public ReserveResult reserve(RecordKey key, String fingerprint, String token, Instant now, Duration lease,
                                 Duration ttl) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(token, "ownerToken");
        Instant at = Records.micros(now);
        Map<String, Object> row = Records.rowValues(NewRow.inFlight(key, fingerprint, token, now, lease, ttl), at);
        SqlReserve.Found found = join(SqlReserve.reserve(catalog.dialect(), key, token, at, (name, mapping) -> stage(
                () -> CompletableFuture.completedFuture(call(key.tenant(),
                        s -> s.reserve(name, row, mapping, asynchronousReservationCommit))))));
        return found.won() ? ReserveResult.acquired(this, key, token) : new ReserveResult.Existing(found.record());
    }

    /**
     * The release's owner-checked DELETE. In the atomic mode there is nothing to release after a
     * failed reservation: its uncommitted row goes with the transaction, rolled back when the
     * connection is lost or returned.
     */
    @Override
    public boolean releaseIfOwned(RecordKey key, String ownerToken) {
        return release(key, ownerToken);
    }

    /** The atomic mode's attempt: {@link #attemptInTransaction}. */
    @Override
    public Optional<Atomic> atomic() {
        return Optional.of(this::attemptInTransaction);
    }

    /**
     * One attempt of the atomic mode's reservation: on a pooled connection, in a READ COMMITTED
     * transaction that the won reservation keeps open for the handler (its {@code unwrap} gives an
     * {@link AtomicTransaction}, a {@link Connection} or a jOOQ {@link DSLContext}, and the
     * {@link DataSource} the connection came from). A key held by another, still uncommitted
     * transaction is waited for, at most {@code wait}; then the attempt tells who holds it, as far as
     * the dialect can tell without waiting:
     * <ul>
     *   <li>PostgreSQL: a won reservation also takes three shared transaction-scoped advisory locks
     *       (two-{@code int4} form, classids 1229212488 "IDKH" and 1229212492 "IDKL": 64 bits of the
     *       key; 1229210180 "IDBD": 32 bits of the key and body) in the statement it sends anyway;
     *       the duplicate reads {@code pg_locks} once. A 32-bit collision of the key-and-body lock
     *       can only turn a 422 into a 409 — never a replay, never a 422 for the same body.</li>
     *   <li>MariaDB/MySQL: the duplicate reads the row at READ UNCOMMITTED (for that one read; two
     *       round trips).</li>
     *   <li>H2 (2.x): the same dirty read, the level set through JDBC and put back.</li>
     * </ul>
     * The winner's path costs nothing more; nothing uncommitted is ever replayed.
     */
    AtomicAttempt<Reservation> attemptInTransaction(RecordKey key, String fingerprint, String ownerToken,
                                                           Instant now, Duration lease, Duration ttl, Duration wait) {
        return join(stage(() -> atomic.attempt(key, fingerprint, ownerToken, now, lease, ttl, wait)))
                .map(reservation -> ((SqlReservation) reservation).blocking());
    }

    @Override
    public Optional<IdempotencyRecord> find(RecordKey key, Instant now) {
        Objects.requireNonNull(key, "key");
        Map<String, Object> values = Records.keyValues(key);
        values.put("now", Records.micros(now));
        return call(key.tenant(), s -> s.query("find", values, row -> Records.read(key, row)))
                .stream().findFirst();
    }

    @Override
    public boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now,
                                   Duration ttl) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(response, "response");
        NewRow row = NewRow.completed(key, fingerprint, response, now, ttl);
        Map<String, Object> values = Records.rowValues(row, Records.micros(now));
        if (catalog.dialect() == SqlDialect.POSTGRES) {
            return call(key.tenant(), s -> s.update("insertCompleted", values)) == 1;
        }
        // The upsert writes only where no live record is; H2 may lose a race for a new key: ask again.
        for (int attempt = 0; ; attempt++) {
            List<Boolean> written = call(key.tenant(), s -> s.upsert(values,
                    r -> row.ownerToken().equals(r.text("owner_token"))));
            if (!written.isEmpty() || attempt == 3) {
                return !written.isEmpty() && written.get(0);
            }
        }
    }

    /**
     * Deletes one bounded batch of rows whose {@code expires_at} is at or before {@code now}.
     * With row-level security, the batch holds only rows the connecting role may see: purge
     * through a store on a role that bypasses the policy.
     */
    @Override
    public int purgeExpired(Instant now, int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, was " + limit);
        }
        Map<String, Object> values = Map.of("now", Records.micros(now), "limit", limit);
        return connections.call(null, c -> purge != null ? purge.batch(sessions.on(c), values)
                : (int) (long) JdbcSession.join(sessions.on(c).update("purge", values)));
    }

    /** The record keeps the expiry its reservation set: the ttl counts from the reservation. */
    @Override
    public boolean complete(RecordKey key, String ownerToken, StoredResponse response) {
        return call(key.tenant(), s -> s.update("complete", Records.completeValues(key, ownerToken, response))) == 1;
    }

    boolean release(RecordKey key, String ownerToken) {
        return call(key.tenant(), s -> s.update("release", Records.ownerValues(key, ownerToken))) == 1;
    }

    @Override
    public boolean renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
        Map<String, Object> values = Records.renewValues(key, ownerToken, Records.micros(now.plus(lease)));
        return call(key.tenant(), s -> s.update("renew", values)) == 1;
    }

    /** {@code work} on a session over a pooled connection ({@link TenantConnections#call}). */
    private <T> T call(String tenant, Function<JdbcSession, CompletionStage<T>> work) {
        return connections.call(tenant, c -> JdbcSession.join(work.apply(sessions.on(c))));
    }

    /** {@code work} as a stage; what it throws, the stage's failure. */
    private static <T> CompletionStage<T> stage(java.util.function.Supplier<CompletionStage<T>> work) {
        try {
            return work.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The value of a complete stage; its failure as the store reports it (outages translated). */
    private <T> T join(CompletionStage<T> stage) {
        try {
            return JdbcSession.join(stage);
        } catch (SQLException | RuntimeException e) {
            throw SqlFailures.translate(e, tableLabel);
        }
    }

    private static Exception exception(Throwable failure) {
        return failure instanceof Exception e ? e : new RuntimeException(failure);
    }

    @Override
    public String toString() {
        return "JdbcStore[" + dialect + ", table=" + tableLabel + (tenantSetting == null ? "" : ", rls=" + tenantSetting)
                + (asynchronousReservationCommit ? ", asynchronousReservationCommit" : "") + "]";
    }

    /**
     * Options of a {@link JdbcStore}, checked by {@link #build()}.
     *
     * <table>
     *   <caption>Options and defaults</caption>
     *   <tr><th>option</th><th>default</th><th>meaning</th></tr>
     *   <tr><td>{@code tableName}</td><td>{@code idempotency_keys}</td><td>the table, optionally
     *       schema-qualified ({@code app.idempotency_keys}); quoted as given, so use lower case</td></tr>
     *   <tr><td>{@code dialect}</td><td>detected</td><td>jOOQ's {@link SQLDialect}: POSTGRES, MARIADB,
     *       MYSQL or H2; detected from one connection's metadata at {@code build()} when not given</td></tr>
     *   <tr><td>{@code rowLevelSecurity}</td><td>false</td><td>PostgreSQL only: set the tenant per
     *       transaction for the shipped policy</td></tr>
     *   <tr><td>{@code tenantSetting}</td><td>{@code idempotency.tenant_id}</td><td>the setting the policy
     *       reads</td></tr>
     *   <tr><td>{@code asynchronousReservationCommit}</td><td>false</td><td>PostgreSQL only: the reserve
     *       mode's reservation commits without waiting for its WAL flush; weaker after a database crash
     *       (see the option)</td></tr>
     *   <tr><td>{@code statementTimeout}</td><td>5 s</td><td>how long a statement on the table may run, lock
     *       waits included, before the request is answered 503 busy</td></tr>
     *   <tr><td>{@code verifySchema}</td><td>false</td><td>{@code build()} checks the table and its columns
     *       ({@link JdbcStore#verifySchema()})</td></tr>
     * </table>
     */
    public static final class Builder {
        private final DataSource dataSource;
        private TableName tableName = TableName.of(DEFAULT_TABLE);
        private SQLDialect dialect;
        private boolean rowLevelSecurity;
        private String tenantSetting = DEFAULT_TENANT_SETTING;
        private boolean asynchronousReservationCommit;
        private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;
        private boolean verifySchema;
        private boolean readBack;

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The table, optionally qualified by a schema (PostgreSQL, H2) or database (MariaDB/MySQL). */
        public Builder tableName(String tableName) {
            this.tableName = TableName.of(tableName);
            return this;
        }

        /** The dialect, instead of detecting it from a connection (which needs the database up at build time). */
        public Builder dialect(SQLDialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /** Whether to set the tenant per transaction for a PostgreSQL row-level-security policy. */
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
         * Opt-in, PostgreSQL only: the reserve mode's reservation, when it writes the in-flight row,
         * commits with {@code synchronous_commit = off} for that one transaction (set inside the
         * reservation statement, so it costs no round trip) and does not wait for its WAL flush.
         * The completion, release, renewal, the optimistic mode's insert and the whole atomic mode
         * stay synchronous. Saves one WAL flush wait per executed request.
         *
         * <p>What it weakens: a database crash (or a failover) before that WAL is flushed — by the
         * WAL writer within three {@code wal_writer_delay}s, or by any later synchronous commit —
         * forgets the reservation, so a retry may run a handler whose effects live outside this
         * database a second time. See the module README, "Asynchronous reservation commit".
         *
         * @throws IllegalArgumentException from {@link #build()} when the dialect is not PostgreSQL
         */
        public Builder asynchronousReservationCommit(boolean asynchronousReservationCommit) {
            this.asynchronousReservationCommit = asynchronousReservationCommit;
            return this;
        }

        /**
         * How long each statement of this store on its table may run, waits for locks included —
         * a migration's or {@code VACUUM FULL}'s table lock, a long transaction holding the row —
         * before the database cancels it and the request is answered {@code 503} "Idempotency
         * storage is busy" with {@code Retry-After}. JDBC counts it in whole seconds: a fraction is
         * rounded up. {@link Duration#ZERO} sets no limit (the session's own
         * {@code statement_timeout} / {@code max_statement_time} then applies). Default
         * 5 seconds ({@link JdbcStore#DEFAULT_STATEMENT_TIMEOUT}).
         *
         * <p>PostgreSQL and MariaDB/MySQL: {@link java.sql.Statement#setQueryTimeout} on each of the
         * store's statements (pgJDBC sends a cancel request; MariaDB Connector/J runs it under
         * {@code SET STATEMENT max_statement_time}), so the application's statements on the same
         * pooled connection, the atomic mode's handler included, keep their own limits. H2: not
         * applied; its {@code LOCK_TIMEOUT} bounds the waits of an in-process database. The atomic
         * mode's wait for a duplicate's uncommitted row is {@code inFlightWait}, not this.
         *
         * @throws IllegalArgumentException when negative
         */
        public Builder statementTimeout(Duration statementTimeout) {
            this.statementTimeout = StatementTimeouts.checked(statementTimeout);
            return this;
        }

        /**
         * Whether {@link #build()} runs {@link JdbcStore#verifySchema()}, failing the start with an
         * {@link IllegalStateException} that names a missing table or columns. Default false, so
         * that a store can be built while the database is down (give the {@link #dialect} too);
         * with it on, {@code build()} needs the database.
         */
        public Builder verifySchema(boolean verifySchema) {
            this.verifySchema = verifySchema;
            return this;
        }

        /** MariaDB reserving as MySQL does, reading the row back after the upsert; for tests of that path. */
        Builder readBack() {
            this.readBack = true;
            return this;
        }

        /**
         * Builds the store.
         *
         * @throws IllegalArgumentException   for an unsupported dialect, or row-level security or an
         *                                    asynchronous reservation commit off PostgreSQL
         * @throws IllegalStateException      when the classpath's jOOQ is older than the one this store
         *                                    is tested with (3.19.39)
         * @throws StorageUnavailableException when the dialect must be detected and the database is unreachable
         */
        public JdbcStore build() {
            JooqVersion.require(org.jooq.Constants.VERSION);
            SQLDialect resolved = dialect != null ? dialect : Dialects.detect(dataSource);
            if (!Dialects.isSupported(resolved)) {
                throw new IllegalArgumentException("Unsupported dialect " + resolved
                        + "; JdbcStore speaks POSTGRES, MARIADB, MYSQL and H2");
            }
            SqlCatalog catalog = SqlCatalog.of(Dialects.sqlDialect(resolved), tableName.label());
            boolean postgres = catalog.dialect() == SqlDialect.POSTGRES;
            if (rowLevelSecurity && !postgres) {
                throw new IllegalArgumentException("Row-level security needs PostgreSQL, not " + resolved);
            }
            // MariaDB/MySQL can relax the log flush only server-wide (innodb_flush_log_at_trx_commit),
            // H2 runs in-process: refusing says so, where ignoring would promise a speed-up that never comes.
            if (asynchronousReservationCommit && !postgres) {
                throw new IllegalArgumentException("An asynchronous commit of the reservation needs PostgreSQL, not "
                        + resolved);
            }
            // H2: JDBC's query timeout is a setting of the whole session (it would reach the
            // application's statements on a pooled connection); its LOCK_TIMEOUT bounds the waits.
            int timeout = catalog.dialect() == SqlDialect.H2 ? 0 : wholeSeconds(statementTimeout);
            JdbcSession.Sessions sessions = new JdbcSession.Sessions(dataSource, catalog, resolved, timeout,
                    catalog.dialect() == SqlDialect.MARIADB && !readBack);
            JdbcStore store = new JdbcStore(this, resolved, sessions);
            if (verifySchema) {
                store.verifySchema();
            }
            return store;
        }

        private static int wholeSeconds(Duration timeout) {
            long seconds = timeout.getSeconds() + (timeout.getNano() > 0 ? 1 : 0);
            return (int) Math.min(Integer.MAX_VALUE, seconds);
        }
    }
}
