package dev.idempotency.vertx;

import dev.idempotency.testkit.ConformanceApp;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.Map;

/**
 * {@link ConformanceApp}'s routes in plain Vert.x Web style, guarded on every path. The app's
 * handlers block (an order sleeps for {@code delayMs}), so they run as blocking handlers — test
 * wiring, not something the adapter asks for.
 */
final class ConformanceRoutes {

    private ConformanceRoutes() {
    }

    static Router router(Vertx vertx, IdempotencyHandler idempotency, ConformanceApp app) {
        Router router = Router.router(vertx);
        router.route().handler(BodyHandler.create());
        router.route().handler(idempotency);
        router.post("/orders").blockingHandler(ctx -> {
            Map<String, Object> order = app.createOrder(body(ctx), ctx.request().getParam("delayMs"));
            String id = String.valueOf(order.get("id"));
            ctx.response().setStatusCode(201)
                    .putHeader("Location", "/orders/" + id)
                    .putHeader("X-Order-Seq", id)
                    .addCookie(Cookie.cookie("session", id));
            ctx.json(order);
        }, false);
        router.post("/payments").blockingHandler(ctx -> ctx.json(app.createPayment(body(ctx))), false);
        router.post("/orders/bulk").blockingHandler(ctx -> ctx.json(app.createBulk(body(ctx))), false);
        router.post("/orders/:id").blockingHandler(
                ctx -> ctx.json(app.updateOrder(ctx.pathParam("id"), body(ctx))), false);
        router.post("/reject").blockingHandler(ctx -> {
            ctx.response().setStatusCode(400);
            ctx.json(app.reject());
        }, false);
        router.post("/fail").blockingHandler(ctx -> ctx.json(app.fail()), false);
        router.post("/text").blockingHandler(ctx -> ctx.response()
                .putHeader("Content-Type", "text/plain; charset=utf-8")
                .end(app.text()), false);
        router.get("/orders").blockingHandler(ctx -> ctx.json(app.listOrders()), false);
        return router;
    }

    static HttpServer listen(Vertx vertx, IdempotencyHandler idempotency, Router router) throws Exception {
        return vertx.createHttpServer()
                .requestHandler(idempotency.wrap(router))
                .listen(0, "127.0.0.1")
                .toCompletionStage().toCompletableFuture().get();
    }

    private static byte[] body(RoutingContext ctx) {
        Buffer body = ctx.body().buffer();
        return body == null ? new byte[0] : body.getBytes();
    }
}
