package dev.idempotency.examples.webflux;

import dev.idempotency.examples.ExampleContractTest;
import dev.idempotency.examples.ExampleSettings;
import java.util.Optional;
import org.springframework.context.ConfigurableApplicationContext;

/** The examples' HTTP contract against the WebFlux service (embedded H2, JdbcStore). */
class WebFluxExampleTest extends ExampleContractTest {

    @Override
    protected Optional<String> atomicModeRefusal() {
        return Optional.of(WebFluxExample.ATOMIC_REFUSED);
    }

    @Override
    protected RunningExample start(ExampleSettings settings) {
        WebFluxExample.Services services = WebFluxExample.Services.open(settings);
        ConfigurableApplicationContext context = WebFluxExample.start(services);
        int port = WebFluxExample.port(context);
        return new RunningExample() {
            @Override
            public int port() {
                return port;
            }

            @Override
            public String startupLine() {
                return services.app().startupLine("webflux", port);
            }

            @Override
            public void close() {
                context.close(); // stops the server, then closes the engine and the databases
            }
        };
    }
}
