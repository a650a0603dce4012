package dev.idempotency.framework;

import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * The settings every SQL store an integration builds shares, under its own prefix
 * ({@link JdbcSettings} {@code idempotency.jdbc.*}, {@link R2dbcSettings} {@code idempotency.r2dbc.*}):
 * whether it is built at all, its table, its statement timeout, the schema check at start and
 * whether the table is created at start. Defaults are the store's own, except {@code verify-schema},
 * which is on, and {@code initialize-schema}, {@code embedded}.
 */
public abstract class SqlTableSettings {

    private final String prefix;
    private boolean enabled = true;
    private String tableName;
    private Duration statementTimeout;
    private boolean verifySchema = true;
    private InitializeSchema initializeSchema = InitializeSchema.EMBEDDED;

    /** Settings under {@code prefix} with the store's {@code defaultTable} and {@code defaultStatementTimeout}. */
    protected SqlTableSettings(String prefix, String defaultTable, Duration defaultStatementTimeout) {
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        this.tableName = defaultTable;
        this.statementTimeout = defaultStatementTimeout;
    }

    /** The configuration key of {@code name} under these settings' prefix. */
    public String key(String name) {
        return prefix + "." + name;
    }

    /** Whether the adapter builds the store when the application has the connections and no store bean; default true. */
    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
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

    /**
     * Whether the engine's store of this kind checks at start that its table and columns exist, so
     * a missing migration fails the start with a message naming what is missing; default true. Off,
     * the application can start while the database is down, and a missing table is answered 503 per
     * request instead.
     */
    public boolean isVerifySchema() {
        return verifySchema;
    }

    public void setVerifySchema(boolean verifySchema) {
        this.verifySchema = verifySchema;
    }

    /**
     * When the adapter's own store creates its table at start, from the DDL shipped for its
     * database ({@code createTableIfMissing()}): {@code embedded} (default: an embedded database),
     * {@code always} or {@code never}. It runs after the application's Flyway or Liquibase, before
     * the schema check, and leaves an existing table as it is.
     */
    public InitializeSchema getInitializeSchema() {
        return initializeSchema;
    }

    /** Takes a value's name in any case; any other text fails the start with a message naming the choices. */
    public void setInitializeSchema(String initializeSchema) {
        this.initializeSchema = InitializeSchema.of(key("initialize-schema"), initializeSchema);
    }

    /** The values of {@code initialize-schema}. */
    public enum InitializeSchema {
        /** Only on an embedded database (H2). */
        EMBEDDED,
        /** On every database. */
        ALWAYS,
        /** Never: the application's migrations create the table. */
        NEVER;

        /** The value {@code text} names, in any case; a message naming {@code key} for any other. */
        static InitializeSchema of(String key, String text) {
            for (InitializeSchema value : values()) {
                if (value.name().equalsIgnoreCase(text == null ? "" : text.trim())) {
                    return value;
                }
            }
            throw new IllegalArgumentException(key + " must be embedded, always or never, not '" + text + "'");
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
}
