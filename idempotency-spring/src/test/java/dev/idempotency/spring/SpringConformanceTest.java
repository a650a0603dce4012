package dev.idempotency.spring;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.HttpConformanceTest;
import dev.idempotency.testkit.PathSpelling;
import java.net.URI;
import java.util.Optional;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/**
 * The shared HTTP suite against Spring MVC on a real embedded Tomcat with the auto-configured
 * filter, covering the routes by name as an application would ({@code idempotency.paths}), not
 * with the catch-all default.
 */
class SpringConformanceTest extends HttpConformanceTest {

    @Override
    protected Optional<PathSpelling.Routing> routing() {
        return Optional.empty();
    }

    @Override
    protected RunningServer startServer(IdempotencyEngine engine, ConformanceApp app) {
        SpringApplication application = new SpringApplication(ConformanceService.class);
        application.addInitializers(context -> {
            context.getBeanFactory().registerSingleton("idempotencyEngine", engine);
            context.getBeanFactory().registerSingleton("conformanceApp", app);
        });
        ConfigurableApplicationContext context = application.run(
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--idempotency.enabled=true",
                "--idempotency.paths=/orders,/orders/*,/payments,/reject,/fail,/text",
                "--spring.main.banner-mode=off");
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        URI base = URI.create("http://127.0.0.1:" + port);
        return new RunningServer() {
            @Override
            public URI baseUri() {
                return base;
            }

            @Override
            public void close() {
                context.close();
            }
        };
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(ConformanceController.class)
    static class ConformanceService {
    }
}
