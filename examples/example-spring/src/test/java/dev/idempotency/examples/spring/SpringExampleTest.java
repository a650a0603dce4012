package dev.idempotency.examples.spring;

import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleContractTest;
import dev.idempotency.examples.ExampleSettings;
import java.util.OptionalInt;
import org.springframework.context.ConfigurableApplicationContext;

/** The examples' HTTP contract against the Spring Boot service. */
class SpringExampleTest extends ExampleContractTest {

    /** Tomcat refuses a raw {@code #} in the request target itself (400), before any filter. */
    @Override
    protected OptionalInt serverRefusesFragmentsWith() {
        return OptionalInt.of(400);
    }

    @Override
    protected RunningExample start(ExampleSettings settings) {
        ExampleApp app = ExampleApp.create(settings);
        ConfigurableApplicationContext context = SpringExample.start(app);
        int port = SpringExample.port(context);
        return new RunningExample() {
            @Override
            public int port() {
                return port;
            }

            @Override
            public String startupLine() {
                return app.startupLine("spring", port);
            }

            @Override
            public void close() {
                context.close(); // stops the server, then closes the engine and the database
            }
        };
    }
}
