package dev.idempotency.examples.quarkus;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.Store;
import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleSettings;
import io.agroal.api.AgroalDataSource;
import io.quarkus.agroal.DataSource.DataSourceLiteral;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import jakarta.transaction.TransactionManager;
import javax.sql.DataSource;

/**
 * {@link ExampleApp} — the tables, the repository, the engine and its store, from the environment —
 * as a bean made at start, over the Agroal data source {@link DataSources} made active; its JDBC
 * store begins the atomic mode's transactions on Narayana's transaction manager, so that
 * {@link JoinedWrites} joins them. The engine and store are the beans idempotency-quarkus uses
 * instead of making its own; they are asked for only with {@code idempotency.enabled=true}, which
 * {@code IDEMPOTENCY=off} turns off together with {@link ExampleApp#engine()}.
 */
@Singleton
class ExampleBeans {

    @Produces
    @Singleton
    @Startup
    ExampleApp exampleApp(@Any Instance<AgroalDataSource> dataSources, TransactionManager transactions) {
        ExampleSettings settings = ExampleSettings.fromEnvironment();
        AgroalDataSource pool = dataSources.select(new DataSourceLiteral(DataSources.name(settings))).get();
        return ExampleApp.create(settings, pool, store -> store.transactionManager(transactions));
    }

    /** After the server has stopped: the engine and the store; Quarkus closes the data source. */
    void close(@Disposes ExampleApp app) {
        app.close();
    }

    /** The active data source, where the example's tables are. */
    @Produces
    @Singleton
    DataSource dataSource(ExampleApp app) {
        return app.dataSource();
    }

    @Produces
    @Singleton
    IdempotencyEngine idempotencyEngine(ExampleApp app) {
        return app.engine().orElseThrow(() -> new IllegalStateException("IDEMPOTENCY=off: no engine"));
    }

    @Produces
    @Singleton
    Store idempotencyStore(ExampleApp app) {
        return app.blockingStore().orElseThrow(() -> new IllegalStateException("IDEMPOTENCY=off: no store"));
    }
}
