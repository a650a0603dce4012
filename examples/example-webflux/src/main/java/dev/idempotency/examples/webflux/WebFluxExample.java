package dev.idempotency.examples.webflux;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleSettings;
import dev.idempotency.examples.ExampleStore;
import dev.idempotency.r2dbc.R2dbcStore;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.context.support.GenericApplicationContext;

/**
 * The orders/payments example on Spring Boot 4 WebFlux (Reactor Netty). The idempotency part is
 * configuration — {@code idempotency.enabled} and {@code idempotency.paths}, set below — plus the
 * engine bean, {@link ExampleApp}'s, which the auto-configured WebFilter uses. With a PostgreSQL
 * {@code DATABASE_URL} the orders ({@link R2dbcShop}) and, unless {@code IDEMPOTENCY_STORE} says
 * otherwise, the idempotency records ({@link R2dbcStore}) go through one R2DBC pool; with
 * {@code IDEMPOTENCY_STORE=jdbc} the records are {@code JdbcStore}'s, whose blocking calls the
 * filter runs on bounded elastic schedulers. Without {@code DATABASE_URL}: embedded H2 over JDBC
 * ({@link JdbcShop}). The atomic mode runs on R2DBC only: a keyed request's order or payment is
 * written by {@link JoinedWrites}, which joins the reservation's transaction; on JDBC it is
 * refused at start.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({ShopController.class, ProblemAdvice.class, BodyRefusals.class})
public class WebFluxExample {

    static final String ATOMIC_REFUSED = "IDEMPOTENCY_MODE=atomic needs a PostgreSQL DATABASE_URL in the WebFlux "
            + "example (e.g. postgresql://postgres@127.0.0.1:5432/test, IDEMPOTENCY_STORE unset or r2dbc): the atomic "
            + "mode runs the handler inside the store's transaction, which a reactive handler joins on R2DBC, not on "
            + "JDBC (the embedded H2 default, IDEMPOTENCY_STORE=jdbc, other databases). Set such a DATABASE_URL, or use "
            + "IDEMPOTENCY_MODE=reserve or optimistic.";

    /** The longest body the routes read: the engine's {@code maxRequestBodyBytes}, 1 MiB. */
    static final int MAX_BODY_BYTES = 1 << 20;

    public static void main(String[] args) {
        ExampleSettings settings = ExampleSettings.fromEnvironmentOrExit(WebFluxExample::refuseUnsupported);
        Services services = Services.open(settings);
        ConfigurableApplicationContext context = start(services, args); // Spring's shutdown hook closes it
        System.out.println(services.app().startupLine("webflux", port(context)));
    }

    /** What this example cannot run: the atomic mode (with idempotency on) on any store but {@code R2dbcStore}. */
    static void refuseUnsupported(ExampleSettings settings) {
        if (settings.idempotencyEnabled() && settings.mode() == Mode.ATOMIC
                && settings.store(ExampleSettings.StoreKind.R2DBC) != ExampleSettings.StoreKind.R2DBC) {
            throw new IllegalArgumentException(ATOMIC_REFUSED);
        }
    }

    /** The example's data and engine: {@link ExampleApp} and the {@link Shop} the routes use. */
    record Services(ExampleApp app, Shop shop) {

        /**
         * Opens the database (and with PostgreSQL the R2DBC pool), creates the tables and builds
         * the engine.
         *
         * @throws IllegalArgumentException for a setting this example cannot run
         */
        static Services open(ExampleSettings settings) {
            refuseUnsupported(settings);
            R2dbcShop r2dbc = settings.postgres()
                    .map(url -> R2dbcShop.open(url, settings.idempotencyEnabled() && settings.mode() == Mode.ATOMIC))
                    .orElse(null);
            try {
                ExampleApp app = ExampleApp.create(settings, new ExampleApp.StoreSupport(true,
                        ExampleSettings.StoreKind.R2DBC, (s, url) -> r2dbcStore(r2dbc)));
                return new Services(app, r2dbc != null ? r2dbc : new JdbcShop(app.repository()));
            } catch (RuntimeException e) {
                if (r2dbc != null) {
                    r2dbc.close();
                }
                throw e;
            }
        }
    }

    /** {@code R2dbcStore} on the orders' pool; its table is created if missing. */
    private static ExampleStore r2dbcStore(R2dbcShop shop) {
        // the session bounds every statement (R2dbcShop.STATEMENT_TIMEOUT): no per-statement wrapper
        R2dbcStore store = R2dbcStore.builder(shop.pool()).statementTimeout(java.time.Duration.ZERO).build();
        store.createTableIfMissing().toCompletableFuture().join();
        return ExampleStore.async(store, "R2dbcStore (table " + store.tableName() + ", r2dbc-postgresql pool) in "
                + shop.description(), () -> { }); // the pool is the shop's
    }

    /**
     * Starts the service on {@code settings.port()} (0: any free port), bound to {@code HOST} when
     * set. Closing the returned context stops the server, then closes the engine and the database,
     * then the R2DBC pool; when the start fails, they are closed too.
     */
    static ConfigurableApplicationContext start(Services services, String... args) {
        ExampleApp app = services.app();
        ExampleSettings settings = app.settings();
        Map<String, Object> properties = new HashMap<>();
        properties.put("server.port", settings.port());
        settings.host().ifPresent(host -> properties.put("server.address", host)); // unset: every interface
        // IDEMPOTENCY=off: the same routes without the filter (the benchmark baseline).
        properties.put("idempotency.enabled", settings.idempotencyEnabled());
        properties.put("idempotency.paths", String.join(",", ExampleApp.IDEMPOTENT_PATHS));
        // The engine is ExampleApp's (below): no second store.
        properties.put("idempotency.jdbc.enabled", false);
        // bodies up to the engine's limit, as in the other examples (WebFlux's codecs default to 256 KiB)
        properties.put("spring.http.codecs.max-in-memory-size", MAX_BODY_BYTES);
        properties.put("spring.main.log-startup-info", false);
        // The service prints its own start-up line; Spring's INFO lines would bury it.
        properties.put("logging.level.root", "WARN");

        SpringApplication application = new SpringApplication(WebFluxExample.class);
        application.setWebApplicationType(WebApplicationType.REACTIVE);
        application.setBannerMode(Banner.Mode.OFF);
        application.setDefaultProperties(properties);
        application.addInitializers(context -> {
            GenericApplicationContext beans = (GenericApplicationContext) context;
            // Beans, so they are closed with the context after the server has stopped, in the
            // reverse order: the engine and the JDBC pool (ExampleApp), then the R2DBC pool.
            beans.registerBean("shop", Shop.class, services::shop);
            if (services.shop() instanceof R2dbcShop r2dbc) {
                // the atomic mode's writes, which join a keyed request's transaction
                beans.registerBean(JoinedWrites.class, () -> new JoinedWrites(r2dbc));
            }
            beans.registerBean("exampleApp", ExampleApp.class, () -> app);
            app.engine().ifPresent(engine -> beans.registerBean("idempotencyEngine", IdempotencyEngine.class,
                    () -> engine,
                    // replaces the engine the auto-configuration would build; ExampleApp closes it
                    definition -> definition.setDestroyMethodName("")));
        });
        try {
            return application.run(args);
        } catch (RuntimeException e) {
            app.close();
            services.shop().close();
            throw e;
        }
    }

    /** The port the server listens on. */
    static int port(ConfigurableApplicationContext context) {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }
}
