package dev.idempotency.quarkus;

import dev.idempotency.framework.internal.JdbcSchemaCheck;
import dev.idempotency.core.Mode;
import dev.idempotency.framework.IdempotencySettings;
import dev.idempotency.framework.JdbcSettings;
import dev.idempotency.framework.StoreCheck;
import dev.idempotency.jdbc.JdbcStore;
import io.quarkus.agroal.runtime.AgroalDataSourceUtil;
import io.quarkus.arc.Arc;
import io.quarkus.datasource.common.runtime.DataSourceUtil;
import jakarta.transaction.TransactionManager;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jooq.SQLDialect;

/**
 * The {@code JdbcStore} over an Agroal data source, as {@code idempotency.jdbc.*} ({@link JdbcSettings})
 * says; loaded only with idempotency-jdbc (and, to create the store, quarkus-agroal) on the class
 * path. The atomic mode's transaction is a JTA transaction (Narayana's, which quarkus-agroal
 * brings), so a resource's {@code @Transactional} writes on the data source join it; its timeout
 * must not be shorter than the lease. The table is created when
 * {@code idempotency.jdbc.initialize-schema} says so (after the
 * application's Flyway or Liquibase, which migrate at start before beans are used); the schema
 * check runs with the engine's other store checks, and a missing table or column fails the start
 * with one line naming it and the fix ({@link StartFailure}).
 */
final class JdbcStores {

    private JdbcStores() {
    }

    /** The store, or {@code null} when it is switched off or the data source is not active (not configured). */
    static JdbcStore create(IdempotencySettings engine) {
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
        if (engine.getMode() == Mode.ATOMIC) {
            transactionsOutlast(engine.getLease());
        }
        JdbcStore store = settings.toStoreBuilder(dataSource)
                .transactionManager(Arc.container().instance(TransactionManager.class).get())
                .build();
        if (settings.getInitializeSchema().creates(() -> store.dialect() == SQLDialect.H2)) {
            store.createTableIfMissing();
        }
        return store;
    }

    /**
     * The atomic mode's transaction lasts the lease at least: were the transaction manager to roll it
     * back sooner, a request still running would lose its key, and a retry could run beside it.
     */
    private static void transactionsOutlast(Duration lease) {
        String key = "quarkus.transaction-manager.default-transaction-timeout";
        Duration timeout = ConfigProvider.getConfig().getOptionalValue(key, Duration.class).orElse(Duration.ofSeconds(60));
        if (!timeout.isZero() && timeout.compareTo(lease) < 0) {
            throw StartFailure.of(key + " (" + timeout + ") is shorter than " + IdempotencySettings.PREFIX + ".lease ("
                    + lease + "): in the atomic mode the transaction manager would roll back a request still running, "
                    + "and a retry could run beside it; set it to at least the lease",
                    Set.of(key, IdempotencySettings.PREFIX + ".lease"));
        }
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
