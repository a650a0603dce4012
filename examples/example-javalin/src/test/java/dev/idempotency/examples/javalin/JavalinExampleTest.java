package dev.idempotency.examples.javalin;

import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleContractTest;
import dev.idempotency.examples.ExampleSettings;
import io.javalin.Javalin;

/** The examples' HTTP contract against the Javalin service. */
class JavalinExampleTest extends ExampleContractTest {

    @Override
    protected RunningExample start(ExampleSettings settings) {
        ExampleApp app = ExampleApp.create(settings);
        Javalin server = JavalinExample.start(app);
        return new RunningExample() {
            @Override
            public int port() {
                return server.port();
            }

            @Override
            public String startupLine() {
                return app.startupLine("javalin", server.port());
            }

            @Override
            public void close() {
                server.stop(); // closes the app: engine and database
            }
        };
    }
}
