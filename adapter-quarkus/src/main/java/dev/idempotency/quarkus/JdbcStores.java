package dev.idempotency.quarkus;

import dev.idempotency.framework.internal.JdbcSchemaCheck;
import dev.idempotency.framework.JdbcSettings;
import dev.idempotency.framework.StoreCheck;
import dev.idempotency.jdbc.JdbcStore;
import io.quarkus.agroal.runtime.AgroalDataSourceUtil;
import io.quarkus.arc.Arc;
import io.quarkus.datasource.common.runtime.DataSourceUtil;
import jakarta.transaction.TransactionManager;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.jooq.SQLDialect;

/**
 * The {@code JdbcStore} over an Agroal data source, as {@code idempotency.jdbc.*} ({@link JdbcSettings})
 * says; loaded only with idempotency-jdbc (and, to create the store, quarkus-agroal) on the class
 * path. The atomic mode's transaction is a JTA transaction (Narayana's, which quarkus-agroal
 * brings), so a resource's {@code @Transactional} writes on the data source join it. The table is created when {@code idempotency.jdbc.initialize-schema} says so (after the
 * application's Flyway or Liquibase, which migrate at start before beans are used); the schema
 * check runs with the engine's other store checks, and a missing table or column fails the start
 * with one line naming it and the fix ({@link StartFailure}).
 */
final class JdbcStores {

    private JdbcStores() {
    }

    /** The store, or {@code null} when it is switched off or the data source is not active (not configured). */
    static JdbcStore create() {
        JdbcSettings settings = settings();
        if (!settings.isEnabled()) {
            return null;
        }
        String name = settings.getDatasource() == null ? DataSourceUtil.DEFAULT_DATASOURCE_NAME : settings.getDatasource();
        DataSource dataSource = AgroalDataSourceUtil.dataSourceIfActive(name).orElse(null);
        if (dataSource == null) {
            if (settings.getDatasource() != null) {
                throw StartFailure.of(JdbcSettings.PREFIX + ".datasource names '" + name
                        + "', which is not an active data source: configure quarkus.datasource.\"" + name
                        + "\".* or name another one", Set.of(JdbcSettings.PREFIX + ".datasource"));
            }
            return null;
        }
        JdbcStore store = settings.toStoreBuilder(dataSource)
                .transactionManager(Arc.container().instance(TransactionManager.class).get())
                .build();
        if (settings.getInitializeSchema().creates(() -> store.dialect() == SQLDialect.H2)) {
            store.createTableIfMissing();
        }
        return store;
    }

    /** The schema check, unless {@code idempotency.jdbc.verify-schema} is false. */
    static Optional<StoreCheck> schemaCheck() {
        if (!settings().isVerifySchema()) {
            return Optional.empty();
        }
        StoreCheck check = new JdbcSchemaCheck();
        return Optional.of(store -> {
            try {
                check.check(store);
            } catch (IllegalStateException missing) { // the table or columns; its message names them and the fix
                throw StartFailure.of(missing.getMessage(), Set.of(JdbcSettings.PREFIX + ".table-name",
                        JdbcSettings.PREFIX + ".initialize-schema"));
            }
        });
    }

    private static JdbcSettings settings() {
        return StartFailure.shown(() -> SettingsBinding.bind(new JdbcSettings(), JdbcSettings.PREFIX));
    }
}
