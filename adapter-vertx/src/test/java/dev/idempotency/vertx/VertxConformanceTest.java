package dev.idempotency.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.Store;
import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.HttpConformanceTest;
import dev.idempotency.testkit.InterceptingStore;
import dev.idempotency.testkit.PathSpelling;
import dev.idempotency.testkit.internal.BlockedThreadWarnings;
import io.vertx.core.Context;
import io.vertx.core.http.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The shared HTTP suite against a real Vert.x server, under a strict blocked-thread checker (see
 * {@link BlockedThreadWarnings}). After every test: no store call ran on an event loop, every one
 * ran on the adapter's worker pools (or the engine's lease renewer), and no event loop was caught
 * blocked inside the engine or a store.
 */
class VertxConformanceTest extends HttpConformanceTest {

    private static BlockedThreadWarnings checker;
    /** One store call: the operation and the thread it ran on. */
    private record Call(String operation, String thread, boolean onEventLoop) {
    }

    private final List<Call> storeCalls = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startVertx() throws Exception {
        checker = new BlockedThreadWarnings();
        warmUp();
        checker.takeWarnings();
    }

    /** A few requests through every path once, so class loading does not count as blocking. */
    private static void warmUp() throws Exception {
        try (IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.defaults())) {
            IdempotencyHandler idempotency = IdempotencyHandler.create(checker.vertx(), engine);
            HttpServer server = ConformanceRoutes.listen(checker.vertx(), idempotency,
                    ConformanceRoutes.router(checker.vertx(), idempotency, new ConformanceApp()));
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            URI base = URI.create("http://127.0.0.1:" + server.actualPort());
            for (String path : List.of("/orders", "/orders", "/payments", "/text", "/fail", "/async", "/stream",
                    "/large")) {
                client.send(HttpRequest.newBuilder(base.resolve(path)).header("Idempotency-Key", "warm-up")
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"x\",\"quantity\":1,\"amount\":1}"))
                        .build(), HttpResponse.BodyHandlers.discarding());
            }
            client.send(HttpRequest.newBuilder(base.resolve("/orders")).GET().build(),
                    HttpResponse.BodyHandlers.discarding());
            server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            idempotency.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stopVertx() throws Exception {
        closeShared(); // the kept server runs on this Vert.x
        checker.close();
    }

    @Override
    protected Store createStore() {
        return new InterceptingStore(new InMemoryStore(), operation -> storeCalls.add(
                new Call(operation, Thread.currentThread().getName(), Context.isOnEventLoopThread())));
    }

    /**
     * Vert.x Web routes on {@code normalizedPath()}: dot segments, unreserved escapes and
     * {@code //} are resolved before routing.
     */
    @Override
    protected Optional<PathSpelling.Routing> routing() {
        return Optional.of(PathSpelling.Routing.RESOLVED);
    }

    /** {@code TimeoutHandler} fails the request with 503. */
    @Override
    protected OptionalInt serverTimeoutStatus() {
        return OptionalInt.of(503);
    }

    @Override
    protected RunningServer startServer(IdempotencyEngine engine, ConformanceApp app) throws Exception {
        IdempotencyHandler idempotency = IdempotencyHandler.create(checker.vertx(), engine);
        HttpServer server = ConformanceRoutes.listen(checker.vertx(), idempotency,
                ConformanceRoutes.router(checker.vertx(), idempotency, app));
        URI base = URI.create("http://127.0.0.1:" + server.actualPort());
        return new RunningServer() {
            @Override
            public URI baseUri() {
                return base;
            }

            @Override
            public void close() throws Exception {
                server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
                idempotency.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
        };
    }

    @AfterEach
    void noEventLoopWasBlockedAndNoStoreCallRanOnOne() {
        assertThat(checker.takeWarnings()).as("event loop blocked in the engine or a store")
                .noneMatch(BlockedThreadWarnings.Warning::inEngineOrStore);
        assertThat(storeCalls).as("store calls on an event loop").noneMatch(Call::onEventLoop);
        assertThat(storeCalls).as("store calls on the adapter's worker pools or the lease renewer")
                .allSatisfy(call -> assertThat(call.thread()).startsWith("idempotency"));
    }
}
