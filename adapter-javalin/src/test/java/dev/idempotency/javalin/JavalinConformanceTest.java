package dev.idempotency.javalin;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.HttpConformanceTest;
import dev.idempotency.testkit.PathSpelling;
import io.javalin.Javalin;
import java.net.URI;
import java.util.Map;
import java.util.Optional;

/** The shared HTTP suite against the plugin, with the routes written the usual Javalin way. */
class JavalinConformanceTest extends HttpConformanceTest {

    /**
     * Jetty hands Javalin the path as sent: dot segments and escapes reach its router, and a
     * template route takes such a segment as its id.
     */
    @Override
    protected Optional<PathSpelling.Routing> routing() {
        return Optional.of(PathSpelling.Routing.AS_SENT);
    }

    @Override
    protected RunningServer startServer(IdempotencyEngine engine, ConformanceApp app) {
        Javalin server = Javalin.create(cfg -> {
            cfg.registerPlugin(new IdempotencyPlugin(engine));
            cfg.routes.post("/orders", ctx -> {
                Map<String, Object> order = app.createOrder(ctx.bodyAsBytes(), ctx.queryParam("delayMs"));
                String id = String.valueOf(order.get("id"));
                ctx.status(201).header("Location", "/orders/" + id).header("X-Order-Seq", id)
                        .cookie("session", id).json(order);
            });
            cfg.routes.post("/payments", ctx -> ctx.json(app.createPayment(ctx.bodyAsBytes())));
            cfg.routes.post("/orders/bulk", ctx -> ctx.json(app.createBulk(ctx.bodyAsBytes())));
            cfg.routes.post("/orders/{id}", ctx -> ctx.json(app.updateOrder(ctx.pathParam("id"), ctx.bodyAsBytes())));
            cfg.routes.post("/reject", ctx -> ctx.status(400).json(app.reject()));
            cfg.routes.post("/fail", ctx -> app.fail());
            cfg.routes.post("/text", ctx -> ctx.contentType("text/plain; charset=utf-8").result(app.text()));
            cfg.routes.get("/orders", ctx -> ctx.json(app.listOrders()));
        }).start("127.0.0.1", 0);
        return running(server);
    }

    static RunningServer running(Javalin server) {
        URI base = URI.create("http://127.0.0.1:" + server.port());
        return new RunningServer() {
            @Override
            public URI baseUri() {
                return base;
            }

            @Override
            public void close() {
                server.stop();
            }
        };
    }
}
