package dev.idempotency.vertx.sql;

import static dev.idempotency.vertx.sql.PgTestDatabase.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.vertx.IdempotencyHandler;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The atomic mode end to end: Vert.x Web, adapter-vertx and PgStore, the handler writing through the reservation's connection. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgStoreThroughVertxWebTest {

    private PgTestDatabase db;
    private IdempotencyEngine engine;
    private HttpServer server;

    @BeforeAll
    void start() throws Exception {
        db = new PgTestDatabase();
        PgStore store = PgStore.create(db.pool("web", 4));
        await(store.createTableIfMissing());
        db.execute("CREATE TABLE orders (idempotency_key TEXT PRIMARY KEY)");
        engine = new IdempotencyEngine(store, IdempotencyConfig.builder().mode(Mode.ATOMIC).build());
        IdempotencyHandler idempotency = IdempotencyHandler.create(db.vertx, engine);
        Router router = Router.router(db.vertx);
        router.route().handler(BodyHandler.create());
        router.post("/orders").handler(idempotency).handler(ctx -> writeOrder(ctx, false));
        router.post("/failing").handler(idempotency).handler(ctx -> writeOrder(ctx, true));
        server = await(db.vertx.createHttpServer().requestHandler(idempotency.wrap(router)).listen(0, "127.0.0.1"));
    }

    private static void writeOrder(RoutingContext ctx, boolean failAfterwards) {
        SqlConnection tx = IdempotencyHandler.execution(ctx).flatMap(e -> e.unwrap(SqlConnection.class)).orElseThrow();
        String key = ctx.request().getHeader("Idempotency-Key");
        tx.preparedQuery("INSERT INTO orders VALUES ($1)").execute(Tuple.of(key)).onComplete(ar -> {
            if (ar.failed() || failAfterwards) {
                ctx.fail(500, ar.failed() ? ar.cause() : new IllegalStateException("handler failed"));
            } else {
                ctx.response().setStatusCode(201).end("order " + key);
            }
        });
    }

    @AfterAll
    void stop() {
        engine.close();
        db.close();
    }

    @Test
    void theOrderAndTheRecordCommitTogetherAndTheRetryIsReplayed() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post("/orders", key);
        HttpResponse<String> retry = post("/orders", key);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body()).isEqualTo("order " + key);
        assertThat(orders(key)).isEqualTo(1);
    }

    @Test
    void aFailedHandlerLeavesNeitherItsOrderNorARecord() throws Exception {
        String key = UUID.randomUUID().toString();
        assertThat(post("/failing", key).statusCode()).isEqualTo(500);

        assertThat(orders(key)).isZero();
        assertThat(db.execute("SELECT 1 FROM idempotency_keys WHERE key = '" + key + "'").rowCount()).isZero();
    }

    private int orders(String key) {
        return db.execute("SELECT 1 FROM orders WHERE idempotency_key = '" + key + "'").rowCount();
    }

    private HttpResponse<String> post(String path, String key) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.actualPort() + path))
                .header("Idempotency-Key", key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":7}")).build(), HttpResponse.BodyHandlers.ofString());
    }
}
