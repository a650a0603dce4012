package dev.idempotency.vertx.sql;

import static dev.idempotency.vertx.sql.PgTestDatabase.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.testkit.internal.BlockedThreadWarnings;
import dev.idempotency.vertx.IdempotencyHandler;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * adapter-vertx over {@link PgStore} under the strict blocked-thread checker of the test kit (every
 * 10 ms, 100 ms limit): fresh keys, retries and concurrent duplicates in the reserve and atomic
 * modes, and afterwards no event loop was caught blocked inside the engine or the store, and the
 * adapter's worker pools never ran a task (their threads are created on first use): the
 * asynchronous store is used directly, no {@code executeBlocking}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgStoreEventLoopTest {

    private static final String WORKER_POOL = "pg-event-loop-test-workers";
    private static final int KEYS = 24;
    private static final int DUPLICATES = 4;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private BlockedThreadWarnings checker;
    private PgTestDatabase db;
    private Pool pool;

    @BeforeAll
    void start() {
        checker = new BlockedThreadWarnings();
        db = new PgTestDatabase();
        pool = db.pool(checker.vertx(), "event-loop", 8);
        await(PgStore.create(pool).createTableIfMissing());
        db.execute("CREATE TABLE orders (idempotency_key TEXT NOT NULL)");
    }

    @AfterAll
    void stop() throws Exception {
        db.close();
        checker.close();
    }

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = {"RESERVE", "ATOMIC"})
    void theEventLoopsNeverWaitForTheStore(Mode mode) throws Exception {
        AtomicInteger runs = new AtomicInteger();
        try (IdempotencyEngine engine = new IdempotencyEngine(PgStore.create(pool),
                IdempotencyConfig.builder().mode(mode).build())) {
            IdempotencyHandler idempotency = IdempotencyHandler.create(checker.vertx(), engine, WORKER_POOL, 4);
            Router router = Router.router(checker.vertx());
            router.route().handler(BodyHandler.create());
            router.post("/orders").handler(idempotency).handler(ctx -> writeOrder(ctx, mode, runs));
            HttpServer server = await(checker.vertx().createHttpServer()
                    .requestHandler(idempotency.wrap(router)).listen(0, "127.0.0.1"));
            URI orders = URI.create("http://127.0.0.1:" + server.actualPort() + "/orders");
            try {
                post(orders, "warm-up-" + mode).join();
                checker.takeWarnings();

                String run = UUID.randomUUID().toString().substring(0, 8);
                List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
                for (int k = 0; k < KEYS; k++) {
                    for (int d = 0; d < DUPLICATES; d++) {
                        answers.add(post(orders, run + "-" + k));
                    }
                }
                Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
                answers.forEach(a -> statuses.merge(a.orTimeout(60, TimeUnit.SECONDS).join().statusCode(), 1, Integer::sum));
                for (int k = 0; k < KEYS; k++) {
                    HttpResponse<String> retry = post(orders, run + "-" + k).get(60, TimeUnit.SECONDS);
                    assertThat(retry.statusCode()).as("a retry after the first finished").isEqualTo(201);
                    assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
                }

                assertThat(statuses.keySet()).as("201 or 409 while the first runs: %s", statuses)
                        .isSubsetOf(201, 409);
                io.vertx.sqlclient.Row written = db.execute("SELECT count(*), count(DISTINCT idempotency_key) FROM orders"
                        + " WHERE idempotency_key LIKE '" + run + "-%'").iterator().next();
                assertThat(written.getLong(0)).as("orders written").isEqualTo(KEYS);
                assertThat(written.getLong(1)).as("keys with an order").isEqualTo(KEYS);
                assertThat(runs.get()).as("handler runs").isEqualTo(KEYS + 1);
            } finally {
                await(server.close());
                await(idempotency.close());
            }
        }
        // The engine runs on the event loop by design here; a starved CPU can make it look slow
        // there, so what is ruled out is an event loop caught waiting in the engine or the store.
        assertThat(checker.takeWarnings()).as("event loop waiting in the engine or the store")
                .noneMatch(w -> w.inEngineOrStore() && w.waiting());
        assertThat(Thread.getAllStackTraces().keySet()).as("threads of the adapter's worker pools")
                .noneMatch(t -> t.getName().startsWith(WORKER_POOL));
    }

    /** Writes the order: through the reservation's connection in the atomic mode, on the pool otherwise. */
    private void writeOrder(RoutingContext ctx, Mode mode, AtomicInteger runs) {
        runs.incrementAndGet();
        SqlClient sql = mode == Mode.ATOMIC
                ? IdempotencyHandler.execution(ctx).flatMap(e -> e.unwrap(SqlConnection.class)).orElseThrow()
                : pool;
        String key = ctx.request().getHeader("Idempotency-Key");
        sql.preparedQuery("INSERT INTO orders VALUES ($1)").execute(Tuple.of(key)).onComplete(ar -> {
            if (ar.failed()) {
                ctx.fail(500, ar.cause());
            } else {
                ctx.response().setStatusCode(201).end("order " + key);
            }
        });
    }

    private CompletableFuture<HttpResponse<String>> post(URI uri, String key) {
        return http.sendAsync(HttpRequest.newBuilder(uri).header("Idempotency-Key", key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":7}")).build(), HttpResponse.BodyHandlers.ofString());
    }
}
