package dev.idempotency.framework;

import dev.idempotency.jdbc.JdbcStore;
import javax.sql.DataSource;

/**
 * The {@code idempotency.jdbc.*} settings: how an integration builds a {@link JdbcStore} over the
 * application's {@code DataSource} when idempotency-jdbc is on the classpath and no {@code Store}
 * bean is defined, and whether every {@code JdbcStore} (that one or the application's own bean)
 * checks its schema while the application starts ({@link SqlTableSettings}, with
 * {@code embedded} meaning an H2 database).
 */
public class JdbcSettings extends SqlTableSettings {

    /** The configuration prefix. */
    public static final String PREFIX = IdempotencySettings.PREFIX + ".jdbc";

    private String datasource;
    private boolean rowLevelSecurity;
    private String tenantSetting = JdbcStore.DEFAULT_TENANT_SETTING;

    public JdbcSettings() {
        super(PREFIX, JdbcStore.DEFAULT_TABLE, JdbcStore.DEFAULT_STATEMENT_TIMEOUT);
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

    /** The store these settings describe, over {@code dataSource}; its schema is checked separately. */
    public JdbcStore.Builder toStoreBuilder(DataSource dataSource) {
        return JdbcStore.builder(dataSource)
                .tableName(getTableName())
                .statementTimeout(getStatementTimeout())
                .rowLevelSecurity(rowLevelSecurity)
                .tenantSetting(tenantSetting);
    }
}
