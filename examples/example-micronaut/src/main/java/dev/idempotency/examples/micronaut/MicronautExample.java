package dev.idempotency.examples.micronaut;

import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleSettings;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.Micronaut;
import io.micronaut.runtime.server.EmbeddedServer;
import java.util.Map;

/**
 * The orders/payments example on Micronaut 4. The idempotency part is configuration:
 * {@code idempotency.enabled} and {@code idempotency.paths}, set below from the environment and
 * the shared route list, and the engine bean of {@link ExampleBeans}; the controllers are ordinary Micronaut controllers.
 */
public final class MicronautExample {

    private MicronautExample() {
    }

    public static void main(String[] args) {
        ApplicationContext context = start(ExampleSettings.fromEnvironmentOrExit(), args);
        int port = context.getBean(EmbeddedServer.class).getPort();
        System.out.println(context.getBean(ExampleApp.class).startupLine("micronaut", port));
    }

    /**
     * Starts the service on {@code settings.port()} (0: any free port). Closing the returned
     * context stops the server and closes the engine and the database.
     */
    public static ApplicationContext start(ExampleSettings settings, String... args) {
        Map<String, Object> host = settings.host().<Map<String, Object>>map(h -> Map.of("micronaut.server.host", h))
                .orElse(Map.of());   // unset: Micronaut's default, every interface
        return Micronaut.build(args)
                .banner(false)
                .properties(host)
                .properties(Map.of(
                        "micronaut.server.port", settings.port() == 0 ? -1 : settings.port(),
                        // IDEMPOTENCY=off: the same routes without the filter (the benchmark baseline).
                        "idempotency.enabled", settings.idempotencyEnabled(),
                        "idempotency.paths", ExampleApp.IDEMPOTENT_PATHS))
                .singletons(settings)
                .start();
    }
}
