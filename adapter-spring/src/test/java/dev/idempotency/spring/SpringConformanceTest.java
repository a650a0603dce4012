package dev.idempotency.spring;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.HttpConformanceTest;
import dev.idempotency.testkit.PathSpelling;
import java.net.URI;
import java.util.Optional;
import java.util.OptionalInt;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
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

    /**
     * Neither kind fits, so only the suite's invariants are checked (they hold: one record per
     * dispatched handler, or a refusal). What Tomcat 11 and Spring MVC 7 do with the matrix
     * ({@link SpringRoutingTest} pins it): Tomcat answers {@code %2F} and a raw {@code #} with its
     * own 400 and passes everything else through raw; Spring MVC does not ignore a trailing slash
     * ({@code /orders/}: 404, where {@link PathSpelling.Routing#AS_SENT} expects {@code /orders}),
     * does not resolve {@code //}, {@code .} or {@code ..} (404; {@code /orders/.} reaches
     * {@code /orders/{id}} with id {@code "."}), but decodes every segment and drops its
     * {@code ;params} before matching ({@code /%6frders} and {@code /orders;x} reach
     * {@code /orders}, where AS_SENT expects no handler).
     */
    @Override
    protected Optional<PathSpelling.Routing> routing() {
        return Optional.empty();
    }

    /** Tomcat refuses a raw {@code #} in the request target itself, before any filter. */
    @Override
    protected OptionalInt serverRefusesFragmentsWith() {
        return OptionalInt.of(400);
    }

    /** A {@code DeferredResult} that times out is answered 503 by Spring MVC. */
    @Override
    protected OptionalInt serverTimeoutStatus() {
        return OptionalInt.of(503);
    }

    @Override
    protected RunningServer startServer(IdempotencyEngine engine, ConformanceApp app) {
        ConfigurableApplicationContext context = run(engine, app);
        URI base = baseUri(context);
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

    /** {@link ConformanceApp}'s routes on embedded Tomcat, the filter on them, {@code engine} as the engine bean. */
    static ConfigurableApplicationContext run(IdempotencyEngine engine, ConformanceApp app) {
        SpringApplication application = new SpringApplication(ConformanceService.class);
        application.addInitializers(context -> {
            context.getBeanFactory().registerSingleton("idempotencyEngine", engine);
            context.getBeanFactory().registerSingleton("conformanceApp", app);
        });
        return application.run(
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--idempotency.enabled=true",
                "--idempotency.paths=/orders,/orders/*,/payments,/reject,/fail,/text,/async,/stream,/large,/timeout,/mapped",
                "--spring.main.banner-mode=off");
    }

    static URI baseUri(ConfigurableApplicationContext context) {
        return URI.create("http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(ConformanceController.class)
    static class ConformanceService {
    }
}
