package dev.idempotency.examples.micronaut;

import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleContractTest;
import dev.idempotency.examples.ExampleSettings;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;

/** The examples' HTTP contract against the Micronaut service. */
class MicronautExampleTest extends ExampleContractTest {

    @Override
    protected RunningExample start(ExampleSettings settings) {
        ApplicationContext context = MicronautExample.start(settings);
        int port = context.getBean(EmbeddedServer.class).getPort();
        return new RunningExample() {
            @Override
            public int port() {
                return port;
            }

            @Override
            public String startupLine() {
                return context.getBean(ExampleApp.class).startupLine("micronaut", port);
            }

            @Override
            public void close() {
                context.close(); // stops the server, closes the engine and the database
            }
        };
    }
}
