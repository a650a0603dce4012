package dev.idempotency.vertx;

import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.HostileClientChecks;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.TimeoutHandler;
import java.util.List;
import java.util.Map;

/**
 * {@link ConformanceApp}'s routes in plain Vert.x Web style, guarded on every path. The app's
 * handlers block (an order sleeps for {@code delayMs}), so they run as blocking handlers — test
 * wiring, not something the adapter asks for. {@code /async} and {@code /stream} stay on the event
 * loop: one answers when the app's future completes, back on the request's context; the other
 * writes its chunks from timers. {@code /timeout} runs under a {@code TimeoutHandler}; {@code /mapped}'s failure
 * handler answers the app's exception with 201.
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
        router.post("/async").handler(ctx -> Future.fromCompletionStage(
                        app.createOrderLater(body(ctx), ctx.request().getParam("delayMs")), ctx.vertx().getOrCreateContext())
                .onSuccess(order -> {
                    ctx.response().setStatusCode(201).putHeader("Location", "/orders/" + order.get("id"));
                    ctx.json(order);
                })
                .onFailure(ctx::fail));
        router.post("/timeout").handler(TimeoutHandler.create(HostileClientChecks.SERVER_TIMEOUT.toMillis()))
                .handler(ctx -> Future.fromCompletionStage(app.createOrderTooLate(body(ctx),
                        ctx.request().getParam("delayMs")), ctx.vertx().getOrCreateContext()).onSuccess(order -> {
                            if (!ctx.response().ended()) { // after the timeout, the answer has nowhere to go
                                ctx.response().setStatusCode(201).putHeader("Location", "/orders/" + order.get("id"));
                                ctx.json(order);
                            }
                        }));
        router.post("/mapped").blockingHandler(ctx -> ctx.json(app.createOrderByException(body(ctx))), false)
                .failureHandler(ctx -> {
                    if (ctx.failure() instanceof ConformanceApp.Mapped mapped) {
                        ctx.response().setStatusCode(201).putHeader("Location", mapped.location());
                        ctx.json(mapped.order());
                    } else {
                        ctx.next();
                    }
                });
        router.post("/stream").handler(ctx -> {
            ConformanceApp.Chunks stream = app.streamChunks();
            String delayMs = ctx.request().getParam("delayMs");
            long delay = delayMs == null || delayMs.isBlank() ? 0 : Long.parseLong(delayMs);
            HttpServerResponse response = ctx.response().setChunked(true)
                    .putHeader("Content-Type", "text/plain; charset=utf-8")
                    .putHeader("Location", stream.location());
            writeChunks(ctx.vertx(), response, stream.chunks(), 0, delay);
        });
        router.post("/large").blockingHandler(ctx -> {
            ConformanceApp.Blob blob = app.large(ctx.request().getParam("bytes"), ctx.request().getParam("type"),
                    ctx.request().getParam("delayMs"));
            ctx.response().setStatusCode(201)
                    .putHeader("Content-Type", blob.contentType())
                    .putHeader("Location", blob.location())
                    .end(Buffer.buffer(blob.body()));
        }, false);
        return router;
    }

    /** Writes chunk {@code i}, then the next one {@code delayMs} later from a timer; ends after the last. */
    private static void writeChunks(Vertx vertx, HttpServerResponse response, List<String> chunks, int i, long delayMs) {
        response.write(chunks.get(i));
        if (i + 1 == chunks.size()) {
            response.end();
        } else if (delayMs == 0) {
            writeChunks(vertx, response, chunks, i + 1, delayMs);
        } else {
            vertx.setTimer(delayMs, t -> writeChunks(vertx, response, chunks, i + 1, delayMs));
        }
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
