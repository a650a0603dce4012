package dev.idempotency.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.StoreCall;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.spring.IdempotencyProperties;
import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.HttpConformanceTest;
import dev.idempotency.testkit.PathSpelling;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
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
            "/async", "/stream", "/large", "/mapped");

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

    /** WebFlux cancels the exchange when the client goes away: the filter abandons the key. */
    @Override
    protected boolean cancelsHandlersOnDisconnect() {
        return true;
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

    /**
     * The client goes away while the handler runs: WebFlux cancels the exchange, nothing is stored,
     * and the key stays in flight (409) until its lease ends — then a retry runs the handler again.
     */
    @Test
    void aCancelledExchangeKeepsItsKeyInFlightUntilItsLeaseEnds() throws Exception {
        URI uri = start(c -> c.lease(Duration.ofSeconds(1)));
        String key = newKey();
        byte[] order = "{\"item\":\"book\",\"quantity\":2}".getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.getOutputStream().write(("POST /orders?delayMs=1500 HTTP/1.1\r\nHost: localhost\r\n"
                    + "Content-Type: application/json\r\nIdempotency-Key: " + key + "\r\nContent-Length: "
                    + order.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().write(order);
            socket.getOutputStream().flush();
            awaitExecutions("orders", 1);
        }
        Thread.sleep(200);

        HttpResponse<byte[]> meanwhile = post("/orders?delayMs=1500", key, new String(order, StandardCharsets.UTF_8));
        Thread.sleep(1500);
        HttpResponse<byte[]> later = post("/orders?delayMs=1500", key, new String(order, StandardCharsets.UTF_8));

        assertThat(meanwhile.statusCode()).as("in flight, not released").isEqualTo(409);
        assertThat(later.statusCode()).isEqualTo(201);
        assertThat(later.headers().firstValue("Idempotent-Replayed")).as("nothing was stored").isEmpty();
        assertThat(app.executions("orders")).isEqualTo(2);
    }

    /**
     * Over an asynchronous store the engine is called where the filter is — here on the event loop
     * that serves the exchange (a handler that does not hop threads) — and no scheduler is created.
     */
    @Test
    void overAnAsynchronousStoreTheEngineStaysOnTheEventLoop() throws Exception {
        Map<String, String> threads = new ConcurrentHashMap<>();
        IdempotencyEngine asyncEngine = new IdempotencyEngine(AsyncStore.of(new InMemoryStore(), Runnable::run),
                IdempotencyConfig.builder().listener(new IdempotencyListener() {
                    @Override
                    public void onEvent(IdempotencyEvent event) {
                    }

                    @Override
                    public void onStoreCall(StoreCall call) {
                        threads.put(Thread.currentThread().getName(), call.operation());
                    }
                }).build());
        try (RunningServer running = startServer(asyncEngine, app)) {
            String key = newKey();
            HttpRequest payment = HttpRequest.newBuilder(running.baseUri().resolve("/payments"))
                    .header("Content-Type", "application/json").header("Idempotency-Key", key)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":5}")).build();
            HttpResponse<byte[]> first = send(payment);
            HttpResponse<byte[]> retry = send(payment);

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        } finally {
            asyncEngine.close();
        }
        assertThat(threads).isNotEmpty();
        assertThat(threads.keySet()).allSatisfy(thread -> assertThat(thread).startsWith("reactor-http-"));
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
