package dev.idempotency.jdbc.internal;

import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.sql.Ddl;
import dev.idempotency.sql.SchemaCheck;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The store's schema management: {@code JdbcStore.createTableIfMissing} and
 * {@code JdbcStore.verifySchema}, whose Javadoc states the contracts; row-level security is on when
 * {@code connections} has a tenant setting.
 * <p>Internal, not API: may change without notice.
 */
public record Schema(TenantConnections connections, SqlCatalog catalog) {

    /**
     * Runs the dialect's table scripts under its DDL lock (instances that start together create or
     * upgrade the table one after the other: PostgreSQL a transaction's advisory lock, MariaDB/MySQL
     * a named lock of the session, released after), and the policy with row-level security.
     */
    public void createTableIfMissing() {
        String tenantSetting = connections.tenantSetting();
        String setting = tenantSetting == null ? Ddl.DEFAULT_TENANT_SETTING : tenantSetting;
        SqlDialect dialect = catalog.dialect();
        String lock = dialect == SqlDialect.H2 ? null : catalog.sql("ddlLock");
        String unlock = dialect == SqlDialect.H2 || dialect == SqlDialect.POSTGRES ? null : catalog.sql("ddlUnlock");
        connections.call(null, c -> {
            // Decided after the lock, so that of instances starting together only the first upgrades.
            DdlTransaction.run(c, lock, unlock, locked -> {
                Set<String> present = columnsIfTableExists(locked);
                List<String> scripts = new ArrayList<>(Ddl.scripts(dialect, !present.isEmpty(),
                        present.contains("caller"), false));
                if (tenantSetting != null) {
                    scripts.add(Ddl.rowLevelSecurityScript());
                }
                return Ddl.statements(dialect, scripts, catalog.table(), setting);
            });
            return null;
        });
    }

    /** Compares the table's columns with those the store uses; a missing table is an {@link IllegalStateException}. */
    public void verify() {
        String tableLabel = catalog.table().label();
        Set<String> present;
        try (Connection c = connections.dataSource().getConnection()) {
            present = columns(c);
        } catch (SQLException e) {
            RuntimeException translated = SqlFailures.translate(e, tableLabel);
            if (translated instanceof StorageUnavailableException unavailable
                    && unavailable.reason() == StorageUnavailableException.Reason.NOT_PROVISIONED) {
                throw SchemaCheck.missingTable(tableLabel, catalog.dialect(), unavailable);
            }
            throw translated;
        }
        SchemaCheck.requireColumns(tableLabel, catalog.dialect(), present);
    }

    /**
     * The names of the table's columns (case-insensitive), read from the result of
     * {@code SELECT * FROM <table> WHERE 1 = 0}: the table resolves as in every statement.
     */
    private Set<String> columns(Connection c) throws SQLException {
        Set<String> present = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(catalog.sql("columnsProbe"))) {
            ResultSetMetaData metaData = rs.getMetaData();
            for (int i = 1; i <= metaData.getColumnCount(); i++) {
                present.add(metaData.getColumnName(i));
            }
        }
        return present;
    }

    /**
     * {@link #columns}, or none when the table does not exist. PostgreSQL asks {@code to_regclass}
     * first (a failed probe would abort the DDL's transaction); elsewhere the failed probe says so.
     */
    private Set<String> columnsIfTableExists(Connection c) throws SQLException {
        if (catalog.dialect() == SqlDialect.POSTGRES) {
            try (PreparedStatement ps = c.prepareStatement(catalog.questionMarks("tableExists").text())) {
                ps.setString(1, catalog.table().quoted(SqlDialect.POSTGRES));
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() && rs.getBoolean(1) ? columns(c) : Set.of();
                }
            }
        }
        try {
            return columns(c);
        } catch (SQLException e) {
            if (SqlFailures.reasonOf(e, catalog.table().base()) == StorageUnavailableException.Reason.NOT_PROVISIONED) {
                return Set.of();
            }
            throw e;
        }
    }
}
