package dev.idempotency.jdbc.internal;

import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.sql.Ddl;
import dev.idempotency.sql.SchemaCheck;
import dev.idempotency.sql.SqlDialect;
import dev.idempotency.sql.TableName;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The store's schema management: {@code JdbcStore.createTableIfMissing} and
 * {@code JdbcStore.verifySchema}, whose Javadoc states the contracts; row-level security is on when
 * {@code connections} has a tenant setting.
 * <p>Internal, not API: may change without notice.
 */
public record Schema(TenantConnections connections, Statements sql, SqlDialect dialect, TableName tableName) {

    /** Runs the dialect's table scripts under its DDL lock, and the policy with row-level security. */
    public void createTableIfMissing() {
        String tenantSetting = connections.tenantSetting();
        String setting = tenantSetting == null ? Ddl.DEFAULT_TENANT_SETTING : tenantSetting;
        connections.call(null, c -> {
            // Decided after the lock, so that of instances starting together only the first upgrades.
            DdlTransaction.run(c, sql.ddlLock(), sql.ddlUnlock(), locked -> {
                List<String> scripts = new ArrayList<>(sql.tableScripts(locked));
                if (tenantSetting != null) {
                    scripts.add(Ddl.rowLevelSecurityScript());
                }
                return Ddl.statements(dialect, scripts, tableName, setting);
            });
            return null;
        });
    }

    /** Compares the table's columns with those the store uses; a missing table is an {@link IllegalStateException}. */
    public void verify() {
        String tableLabel = tableName.label();
        Set<String> present;
        try (Connection c = connections.dataSource().getConnection()) {
            present = sql.columns(c);
        } catch (SQLException e) {
            RuntimeException translated = SqlFailures.translate(e, tableLabel);
            if (translated instanceof StorageUnavailableException unavailable
                    && unavailable.reason() == StorageUnavailableException.Reason.NOT_PROVISIONED) {
                throw SchemaCheck.missingTable(tableLabel, dialect, unavailable);
            }
            throw translated;
        }
        SchemaCheck.requireColumns(tableLabel, dialect, present);
    }
}
