package dev.idempotency.examples.spring;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleSettings;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.context.support.GenericApplicationContext;

/**
 * The orders/payments example on Spring Boot 4 (Spring MVC on embedded Tomcat). The idempotency
 * part is configuration — {@code idempotency.enabled} and {@code idempotency.paths}, set below from
 * the environment and the shared route list — plus the engine bean, which is {@link ExampleApp}'s
 * (the one every example builds, so all frameworks behave alike; an application of its own would
 * let the auto-configuration build it from {@code idempotency.*} and its {@code DataSource}). The
 * example's pool is the application's {@code DataSource} bean, so in the atomic mode the writes of
 * {@link JoinedWrites} — a {@code @Transactional} service on {@code JdbcTemplate} — join the
 * request's transaction. The controllers ({@link ShopController}) are ordinary
 * {@code @RestController}s.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({ShopController.class, JoinedWrites.class, ProblemAdvice.class, WildcardContentTypes.class})
public class SpringExample {

    public static void main(String[] args) {
        ExampleApp app = ExampleApp.create(ExampleSettings.fromEnvironmentOrExit());
        ConfigurableApplicationContext context = start(app, args); // Spring's shutdown hook closes it (and app)
        System.out.println(app.startupLine("spring", port(context)));
    }

    /**
     * Starts the service on {@code app.settings().port()} (0: any free port), bound to {@code HOST}
     * when set. Closing the returned context stops the server and then closes {@code app} (the
     * engine, the store, the database); when the start fails, {@code app} is closed too.
     */
    public static ConfigurableApplicationContext start(ExampleApp app, String... args) {
        ExampleSettings settings = app.settings();
        Map<String, Object> properties = new HashMap<>();
        properties.put("server.port", settings.port());
        settings.host().ifPresent(host -> properties.put("server.address", host)); // unset: every interface
        // IDEMPOTENCY=off: the same routes without the filter (the benchmark baseline).
        properties.put("idempotency.enabled", settings.idempotencyEnabled());
        properties.put("idempotency.paths", String.join(",", ExampleApp.IDEMPOTENT_PATHS));
        // The engine is ExampleApp's (below): no second store over the data source.
        properties.put("idempotency.jdbc.enabled", false);
        properties.put("spring.main.log-startup-info", false);
        // The service prints its own start-up line; Spring's INFO lines would bury it.
        properties.put("logging.level.root", "WARN");

        SpringApplication application = new SpringApplication(SpringExample.class);
        application.setBannerMode(Banner.Mode.OFF);
        application.setDefaultProperties(properties);
        application.addInitializers(context -> {
            GenericApplicationContext beans = (GenericApplicationContext) context;
            // A bean, so it is closed (AutoCloseable) with the context, after the server has stopped.
            beans.registerBean("exampleApp", ExampleApp.class, () -> app);
            // The example's pool as the application's DataSource: Spring Boot builds JdbcTemplate and
            // the DataSourceTransactionManager over it, and the atomic mode's reservations come from it.
            beans.registerBean("dataSource", DataSource.class, app::dataSource,
                    definition -> definition.setDestroyMethodName("")); // ExampleApp closes it
            app.engine().ifPresent(engine -> beans.registerBean("idempotencyEngine", IdempotencyEngine.class,
                    () -> engine,
                    // replaces the engine the auto-configuration would build; ExampleApp closes it
                    definition -> definition.setDestroyMethodName("")));
        });
        try {
            return application.run(args);
        } catch (RuntimeException e) {
            app.close();
            throw e;
        }
    }

    /** The port the server listens on. */
    public static int port(ConfigurableApplicationContext context) {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }
}
