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
import dev.idempotency.sql.SqlPurge;
import dev.idempotency.sql.SqlReservation;
import dev.idempotency.sql.SqlReserve;
import dev.idempotency.sql.StatementTimeouts;
import dev.idempotency.sql.TableName;
import jakarta.transaction.TransactionManager;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production {@link Store}: idempotency records in one table of PostgreSQL, MariaDB (10.5+),
 * MySQL (8.0.19+) or H2 (2.x), reached through a {@link DataSource} (a pool such as HikariCP).
 * It runs idempotency-sql's statements and protocol through JDBC ({@code SQL.md} lists every
 * statement); jOOQ names the dialect and joins the application's jOOQ transactions
 * ({@link AtomicTransaction}, {@link SavepointTransactionProvider}).
 *
 * <pre>{@code
 * JdbcStore store = JdbcStore.builder(dataSource).build();   // dialect from the connection
 * store.createTableIfMissing();                               // development only; ship the DDL otherwise
 * IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyConfig.defaults());
 * }</pre>
 *
 * Time is the engine's {@code now}, stored at microsecond precision; the database's clock plays no
 * part. A missing table and an unreachable or busy database are thrown as
 * {@link StorageUnavailableException}. Completion, release and renewal act only while the
 * reservation's owner token holds the in-flight row. With {@linkplain Builder#rowLevelSecurity
 * row-level security} each call first sets its tenant in its transaction. The atomic mode holds
 * the reservation in a READ COMMITTED transaction the handler writes in (the module README,
 * "Atomic mode"). Thread-safe; holds no connection between calls but an atomic reservation's.
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
    private final SqlPurge purge;

    private JdbcStore(Builder b, SQLDialect dialect, JdbcSession.Sessions sessions) {
        this.dialect = dialect;
        this.tableLabel = b.tableName.label();
        this.tenantSetting = b.rowLevelSecurity ? b.tenantSetting : null;
        this.asynchronousReservationCommit = b.asynchronousReservationCommit;
        this.sessions = sessions;
        this.catalog = sessions.catalog();
        this.atomic = new AtomicSql(catalog,
                b.transactionManager == null ? sessions : new JtaSessions(sessions, b.transactionManager), tenantSetting, 0,
                failure -> failure instanceof Exception e ? SqlFailures.translate(e, tableLabel) : failure,
                SqlReservation::new);
        this.connections = new TenantConnections(b.dataSource, tenantSetting, tableLabel);
        this.schema = new Schema(connections, catalog);
        this.purge = new SqlPurge(catalog, sessions);
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
     * Creates the table and its index if missing, from this dialect's shipped DDL (V1, V4; on
     * PostgreSQL V3's fillfactor for a new table, and the policy with row-level security); a table
     * without the caller column gets V4 once. Instances starting together take turns. Run as the
     * table's owner; for development and tests (production schemas belong in migrations).
     *
     * @throws StorageUnavailableException when the database cannot be reached
     */
    public void createTableIfMissing() {
        schema.createTableIfMissing();
        log.info("Idempotency table {} is in place ({})", tableLabel, dialect);
    }

    /**
     * Checks that the table exists and has every column the store uses, so that a missing
     * migration fails the start, not the first request: one {@code SELECT * … WHERE 1 = 0}, the
     * table resolved as in every statement (types, constraints and the index are not checked).
     *
     * @throws IllegalStateException       naming the missing columns, or the missing table (its cause
     *                                     then a {@link StorageUnavailableException} {@code NOT_PROVISIONED})
     * @throws StorageUnavailableException when the database cannot be reached
     */
    public void verifySchema() {
        schema.verify();
        log.debug("Idempotency table {} has every column the store uses", tableLabel);
    }

    /** The classpath resource with this dialect's DDL (V1) for migration tools; V4 in the same folder follows it. */
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
        SqlReserve.Found found = join(SqlReserve.reserve(catalog.dialect(), key, token, at, (name, mapping) -> JdbcSession
                .call(() -> call(key.tenant(), s -> s.reserve(name, row, mapping, asynchronousReservationCommit)))));
        return found.won() ? ReserveResult.acquired(this, key, token) : new ReserveResult.Existing(found.record());
    }

    @Override
    public boolean releaseIfOwned(RecordKey key, String ownerToken) {
        return call(key.tenant(), s -> s.update("release", Records.ownerValues(key, ownerToken))) == 1;
    }

    /** The atomic mode's attempt: {@link #attemptInTransaction}. */
    @Override
    public Optional<Atomic> atomic() {
        return Optional.of(this::attemptInTransaction);
    }

    /**
     * One attempt of the atomic mode ({@link AtomicSql}): the won reservation's {@code unwrap} gives
     * an {@link AtomicTransaction}, a {@link Connection}, a jOOQ {@link DSLContext} and the
     * {@link DataSource} the connection came from.
     */
    AtomicAttempt<Reservation> attemptInTransaction(RecordKey key, String fingerprint, String ownerToken,
                                                           Instant now, Duration lease, Duration ttl, Duration wait) {
        return join(atomic.attempt(key, fingerprint, ownerToken, now, lease, ttl, wait))
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

    /** One bounded batch; with row-level security only the rows the connecting role may see. */
    @Override
    public int purgeExpired(Instant now, int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, was " + limit);
        }
        return (int) (long) call(null, s -> purge.batch(s, now, limit));
    }

    /** The record keeps the expiry its reservation set: the ttl counts from the reservation. */
    @Override
    public boolean complete(RecordKey key, String ownerToken, StoredResponse response) {
        return call(key.tenant(), s -> s.update("complete", Records.completeValues(key, ownerToken, response))) == 1;
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

    /** The value of a complete stage; its failure as the store reports it (outages translated). */
    private <T> T join(CompletionStage<T> stage) {
        try {
            return JdbcSession.join(stage);
        } catch (SQLException | RuntimeException e) {
            throw SqlFailures.translate(e, tableLabel);
        }
    }

    @Override
    public String toString() {
        return "JdbcStore[" + dialect + ", table=" + tableLabel + (tenantSetting == null ? "" : ", rls=" + tenantSetting)
                + (asynchronousReservationCommit ? ", asynchronousReservationCommit" : "") + "]";
    }

    /** Options of a {@link JdbcStore}, checked by {@link #build()}; the module README lists them with their defaults. */
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
        private TransactionManager transactionManager;

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
         * Opt-in, PostgreSQL only: the reserve mode's reservation, when it writes the row, commits
         * with {@code synchronous_commit = off} for its own transaction (set inside the statement):
         * one WAL flush wait less per executed request. Weaker: a database crash before that WAL is
         * flushed forgets the reservation, so a retry may run a handler whose effects live outside
         * this database again (the module README, "Asynchronous reservation commit").
         *
         * @throws IllegalArgumentException from {@link #build()} when the dialect is not PostgreSQL
         */
        public Builder asynchronousReservationCommit(boolean asynchronousReservationCommit) {
            this.asynchronousReservationCommit = asynchronousReservationCommit;
            return this;
        }

        /**
         * How long each of the store's statements may run, lock waits included, before the database
         * cancels it and the request is answered 503 busy: {@link java.sql.Statement#setQueryTimeout}
         * in whole seconds (rounded up), so the application's statements on the same connection keep
         * their limits. Not on H2 (a session setting there; its {@code LOCK_TIMEOUT} bounds the
         * waits). {@link Duration#ZERO}: no limit. Default {@link JdbcStore#DEFAULT_STATEMENT_TIMEOUT}.
         *
         * @throws IllegalArgumentException when negative
         */
        public Builder statementTimeout(Duration statementTimeout) {
            this.statementTimeout = StatementTimeouts.checked(statementTimeout);
            return this;
        }

        /** Whether {@link #build()} runs {@link JdbcStore#verifySchema()} (and so needs the database); default false. */
        public Builder verifySchema(boolean verifySchema) {
            this.verifySchema = verifySchema;
            return this;
        }

        /**
         * The atomic mode's transaction as a JTA transaction begun on {@code manager} on the request's
         * thread, in which the data source enlists the reservation's connection (Agroal; an
         * application server's data source). Code on that thread writing in the current transaction
         * (a {@code @Transactional} REQUIRED method, Hibernate ORM) takes part: it commits or rolls
         * back with the stored response. The other modes do not use it.
         */
        public Builder transactionManager(TransactionManager manager) {
            this.transactionManager = Objects.requireNonNull(manager, "manager");
            return this;
        }

        /** MariaDB reserving as MySQL does, reading the row back after the upsert; for tests of that path. */
        Builder readBack() {
            this.readBack = true;
            return this;
        }

        /**
         * @throws IllegalArgumentException    for an unsupported dialect, or row-level security or an
         *                                     asynchronous reservation commit off PostgreSQL
         * @throws IllegalStateException       when the classpath's jOOQ is older than the one tested with
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
