package dev.idempotency.spring.webflux;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.spring.IdempotencyProperties;
import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.HttpConformanceTest;
import dev.idempotency.testkit.PathSpelling;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The shared HTTP suite against an annotated WebFlux controller on Reactor Netty. The suite builds
 * an engine (over a blocking store: its calls go to the filter's bounded elastic schedulers) for
 * each test; one application serves the whole class, and each test's filter — the one the
 * auto-configuration registers, built over that engine, at its default order — is swapped in, as
 * a Boot application per test would cost seconds each.
 */
class WebFluxConformanceTest extends HttpConformanceTest {

    static final List<String> PATHS = List.of("/orders", "/orders/*", "/payments", "/reject", "/fail", "/text",
            "/async", "/stream", "/large");

    private static ConfigurableApplicationContext context;
    private static URI base;

    @BeforeAll
    static void startApplication() {
        SpringApplication application = new SpringApplication(ConformanceService.class);
        application.addInitializers(c -> c.getBeanFactory().registerSingleton("conformanceApp",
                (Supplier<ConformanceApp>) () -> CURRENT.app));
        context = application.run("--server.port=0", "--server.address=127.0.0.1");
        base = baseUri(context);
    }

    @AfterAll
    static void stopApplication() {
        context.close();
    }

    /** Neither kind fits (see the README's path table): only the suite's invariants are checked. */
    @Override
    protected Optional<PathSpelling.Routing> routing() {
        return Optional.empty();
    }

    /** Reactor Netty passes a raw {@code #} on; the filter refuses it. */
    @Override
    protected OptionalInt serverRefusesFragmentsWith() {
        return OptionalInt.empty();
    }

    @Override
    protected RunningServer startServer(IdempotencyEngine engine, ConformanceApp app) {
        IdempotencyWebFilter filter = new IdempotencyWebFilter(engine, PATHS, IdempotencyProperties.DEFAULT_ORDER);
        CURRENT.app = app;
        CURRENT.filter = filter;
        return new RunningServer() {
            @Override
            public URI baseUri() {
                return base;
            }

            @Override
            public void close() {
                CURRENT.filter = null;
                filter.close();
            }
        };
    }

    static URI baseUri(ConfigurableApplicationContext context) {
        return URI.create("http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort());
    }

    private static final Current CURRENT = new Current();

    /** The running test's filter, where the auto-configured one would be. */
    static final class Current implements WebFilter, Ordered {
        volatile IdempotencyWebFilter filter;
        volatile ConformanceApp app;

        @Override
        public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
            IdempotencyWebFilter current = filter;
            return current == null ? chain.filter(exchange) : current.filter(exchange, chain);
        }

        @Override
        public int getOrder() {
            return IdempotencyProperties.DEFAULT_ORDER;
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(ConformanceHandler.class)
    static class ConformanceService {

        @Bean
        WebFilter currentIdempotencyFilter() {
            return CURRENT;
        }
    }
}
