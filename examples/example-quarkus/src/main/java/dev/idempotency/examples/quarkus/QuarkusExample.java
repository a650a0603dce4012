package dev.idempotency.examples.quarkus;

import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleSettings;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The orders/payments example on Quarkus REST. The idempotency part is idempotency-quarkus's CDI
 * beans, bound to the covered routes by {@code idempotency.enabled} and {@code idempotency.paths}
 * (application.properties, and {@code IDEMPOTENCY} below), over the engine and store of
 * {@link ExampleApp} (the ones every example builds, so all frameworks behave alike), which
 * {@link ExampleBeans} makes the application's {@code IdempotencyEngine} and {@code Store} beans.
 * The orders, payments and records are in Quarkus's own data source (Agroal, {@link DataSources});
 * the routes ({@link ShopResource}) are plain resource methods, run on worker threads.
 *
 * <p>In the atomic mode the JDBC store begins each keyed request's transaction as a JTA
 * transaction (Narayana) on the request's thread, and the routes write through the
 * {@code @Transactional} {@link JoinedWrites}, which joins it: the order commits with the stored
 * response. {@code REDIS_URL} puts the records in Redis on Lettuce 6.8 (this module's pom pins it:
 * Lettuce 7 needs Netty 4.2, Quarkus runs 4.1).
 */
@QuarkusMain
public class QuarkusExample implements QuarkusApplication {

    @Inject
    ExampleApp app;

    /**
     * Reads the environment (a setting that makes no sense: one line on standard error, exit status
     * 2), hands {@code PORT}, {@code HOST}, {@code IDEMPOTENCY} and the database to Quarkus's
     * configuration, and runs the application until it is stopped.
     */
    public static void main(String[] args) {
        ExampleSettings settings = ExampleSettings.fromEnvironmentOrExit(DataSources::name);
        // System properties are read when Quarkus initialises, after this.
        System.setProperty("quarkus.http.port", Integer.toString(settings.port()));
        settings.host().ifPresent(host -> System.setProperty("quarkus.http.host", host)); // unset: every interface
        // IDEMPOTENCY=off: the same routes without the filters (the benchmark baseline).
        System.setProperty("idempotency.enabled", Boolean.toString(settings.idempotencyEnabled()));
        DataSources.configure(settings);
        Quarkus.run(QuarkusExample.class, args);
    }

    /** Called once the server listens: prints the start-up line and waits for the stop. */
    @Override
    public int run(String... args) {
        // With PORT=0 Quarkus puts the port it bound into its configuration.
        int port = ConfigProvider.getConfig().getValue("quarkus.http.port", Integer.class);
        System.out.println(app.startupLine("quarkus", port));
        Quarkus.waitForExit();
        return 0;
    }
}
