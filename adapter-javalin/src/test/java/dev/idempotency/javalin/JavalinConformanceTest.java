package dev.idempotency.javalin;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.HostileClientChecks;
import dev.idempotency.testkit.HttpConformanceTest;
import dev.idempotency.testkit.PathSpelling;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

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

    /** Javalin answers a request whose asynchronous timeout fired with 500 "Request timed out". */
    @Override
    protected OptionalInt serverTimeoutStatus() {
        return OptionalInt.of(500);
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
            cfg.routes.post("/async", ctx -> ctx.future(() -> app.createOrderLater(ctx.bodyAsBytes(),
                    ctx.queryParam("delayMs")).thenAccept(order -> ctx.status(201)
                    .header("Location", "/orders/" + order.get("id")).json(order))));
            // Javalin's own asynchronous timeout (cfg.http.asyncTimeout), set on this request only.
            cfg.routes.post("/timeout", ctx -> ctx.future(() -> {
                ctx.req().getAsyncContext().setTimeout(HostileClientChecks.SERVER_TIMEOUT.toMillis());
                return app.createOrderTooLate(ctx.bodyAsBytes(), ctx.queryParam("delayMs")).thenAccept(order -> ctx
                        .status(201).header("Location", "/orders/" + order.get("id")).json(order));
            }));
            cfg.routes.post("/mapped", ctx -> ctx.json(app.createOrderByException(ctx.bodyAsBytes())));
            cfg.routes.exception(ConformanceApp.Mapped.class, (e, ctx) -> ctx.status(201)
                    .header("Location", e.location()).json(e.order()));
            cfg.routes.post("/stream", ctx -> stream(ctx, app.streamChunks(), ctx.queryParam("delayMs")));
            cfg.routes.post("/large", ctx -> {
                ConformanceApp.Blob blob = app.large(ctx.queryParam("bytes"), ctx.queryParam("type"),
                        ctx.queryParam("delayMs"));
                ctx.status(201).contentType(blob.contentType()).header("Location", blob.location())
                        .result(blob.body());
            });
        }).start("127.0.0.1", 0);
        return running(server);
    }

    /** Writes each chunk straight to the response and flushes it, {@code delayMs} apart. */
    private static void stream(Context ctx, ConformanceApp.Chunks stream, String delayMs) throws Exception {
        long delay = delayMs == null ? 0 : Long.parseLong(delayMs);
        ctx.status(200).contentType("text/plain; charset=utf-8").header("Location", stream.location());
        OutputStream out = ctx.res().getOutputStream();
        for (int i = 0; i < stream.chunks().size(); i++) {
            if (i > 0) {
                Thread.sleep(delay);
            }
            out.write(stream.chunks().get(i).getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
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
