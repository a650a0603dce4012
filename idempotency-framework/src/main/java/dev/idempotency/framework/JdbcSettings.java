package dev.idempotency.framework;

import dev.idempotency.jdbc.JdbcStore;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * The {@code idempotency.jdbc.*} settings: how an integration builds a {@link JdbcStore} over the
 * application's {@code DataSource} when idempotency-jdbc is on the classpath and no {@code Store}
 * bean is defined, and whether every {@code JdbcStore} (that one or the application's own bean)
 * checks its schema while the application starts. Defaults are the store's own, except
 * {@code verify-schema}, which is on, and {@code initialize-schema}, {@code embedded}.
 */
public class JdbcSettings {

    /** The configuration prefix. */
    public static final String PREFIX = IdempotencySettings.PREFIX + ".jdbc";

    private boolean enabled = true;
    private String datasource;
    private String tableName = JdbcStore.DEFAULT_TABLE;
    private Duration statementTimeout = JdbcStore.DEFAULT_STATEMENT_TIMEOUT;
    private boolean rowLevelSecurity;
    private String tenantSetting = JdbcStore.DEFAULT_TENANT_SETTING;
    private boolean verifySchema = true;
    private InitializeSchema initializeSchema = InitializeSchema.EMBEDDED;

    /** Whether the adapter builds a {@code JdbcStore} when there is a data source and no store bean; default true. */
    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * The name of the data source bean to use; default unset: the application's only, or primary,
     * {@code DataSource}.
     */
    public String getDatasource() {
        return datasource;
    }

    public void setDatasource(String datasource) {
        this.datasource = datasource;
    }

    /** The table, optionally schema-qualified; default {@code idempotency_keys}. */
    public String getTableName() {
        return tableName;
    }

    public void setTableName(String tableName) {
        this.tableName = tableName;
    }

    /** How long a store statement may run, lock waits included, before the answer is 503 busy; default 5 s, 0 for none. */
    public Duration getStatementTimeout() {
        return statementTimeout;
    }

    public void setStatementTimeout(Duration statementTimeout) {
        this.statementTimeout = statementTimeout;
    }

    /** PostgreSQL only: set the tenant per transaction for the shipped row-level-security policy; default false. */
    public boolean isRowLevelSecurity() {
        return rowLevelSecurity;
    }

    public void setRowLevelSecurity(boolean rowLevelSecurity) {
        this.rowLevelSecurity = rowLevelSecurity;
    }

    /** The setting the row-level-security policy reads the tenant from; default {@code idempotency.tenant_id}. */
    public String getTenantSetting() {
        return tenantSetting;
    }

    public void setTenantSetting(String tenantSetting) {
        this.tenantSetting = tenantSetting;
    }

    /**
     * Whether every {@code JdbcStore} bean checks at creation that its table and columns exist
     * ({@link JdbcStore#verifySchema()}), so a missing migration fails the start with a message
     * naming what is missing; default true. Off, the store can be created while the database is
     * down, and a missing table is answered 503 per request instead.
     */
    public boolean isVerifySchema() {
        return verifySchema;
    }

    public void setVerifySchema(boolean verifySchema) {
        this.verifySchema = verifySchema;
    }

    /**
     * When the adapter's own store creates its table at start, from the DDL shipped for its
     * database ({@link JdbcStore#createTableIfMissing()}): {@code embedded} (default: an H2
     * database), {@code always} or {@code never}. It runs after the application's Flyway or
     * Liquibase has migrated the data source, before the schema check, and leaves an existing table
     * as it is.
     */
    public InitializeSchema getInitializeSchema() {
        return initializeSchema;
    }

    /** Takes a value's name in any case; any other text fails the start with a message naming the choices. */
    public void setInitializeSchema(String initializeSchema) {
        this.initializeSchema = InitializeSchema.of(initializeSchema);
    }

    /** The values of {@code idempotency.jdbc.initialize-schema}. */
    public enum InitializeSchema {
        /** Only on an embedded database (H2). */
        EMBEDDED,
        /** On every database. */
        ALWAYS,
        /** Never: the application's migrations create the table. */
        NEVER;

        /** The value {@code text} names, in any case; a clear message for any other. */
        static InitializeSchema of(String text) {
            for (InitializeSchema value : values()) {
                if (value.name().equalsIgnoreCase(text == null ? "" : text.trim())) {
                    return value;
                }
            }
            throw new IllegalArgumentException(PREFIX + ".initialize-schema must be embedded, always or never, not '"
                    + text + "'");
        }

        /** Whether the table is created at start under this setting; {@code embedded} asked only for {@code EMBEDDED}. */
        public boolean creates(BooleanSupplier embedded) {
            return switch (this) {
                case ALWAYS -> true;
                case EMBEDDED -> embedded.getAsBoolean();
                case NEVER -> false;
            };
        }
    }

    /** The store these settings describe, over {@code dataSource}; its schema is checked separately. */
    public JdbcStore.Builder toStoreBuilder(DataSource dataSource) {
        return JdbcStore.builder(dataSource)
                .tableName(tableName)
                .statementTimeout(statementTimeout)
                .rowLevelSecurity(rowLevelSecurity)
                .tenantSetting(tenantSetting);
    }
}
