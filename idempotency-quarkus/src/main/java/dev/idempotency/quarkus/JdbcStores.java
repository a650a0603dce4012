package dev.idempotency.quarkus;

import dev.idempotency.framework.JdbcSchemaCheck;
import dev.idempotency.framework.JdbcSettings;
import dev.idempotency.framework.StoreCheck;
import dev.idempotency.jdbc.JdbcStore;
import io.quarkus.agroal.runtime.AgroalDataSourceUtil;
import io.quarkus.datasource.common.runtime.DataSourceUtil;
import javax.sql.DataSource;
import org.jooq.SQLDialect;

/**
 * The {@code JdbcStore} over an Agroal data source; loaded only with idempotency-jdbc and
 * quarkus-agroal on the class path. The table is created when {@code idempotency.jdbc.initialize-schema}
 * says so (after the application's Flyway or Liquibase, which migrate at start before beans are
 * used); the schema check runs with the engine's other store checks.
 */
final class JdbcStores {

    private JdbcStores() {
    }

    /** The store, or {@code null} when the data source is not active (not configured). */
    static JdbcStore create(JdbcSettings settings) {
        String name = settings.getDatasource() == null ? DataSourceUtil.DEFAULT_DATASOURCE_NAME : settings.getDatasource();
        DataSource dataSource = AgroalDataSourceUtil.dataSourceIfActive(name).orElse(null);
        if (dataSource == null) {
            if (settings.getDatasource() != null) {
                throw new IllegalStateException(JdbcSettings.PREFIX + ".datasource names '" + name
                        + "', which is not an active data source");
            }
            return null;
        }
        JdbcStore store = settings.toStoreBuilder(dataSource).build();
        if (settings.getInitializeSchema().creates(() -> store.dialect() == SQLDialect.H2)) {
            store.createTableIfMissing();
        }
        return store;
    }

    static StoreCheck schemaCheck() {
        return new JdbcSchemaCheck();
    }
}
