package dev.idempotency.examples.javalin;

import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleRequests;
import dev.idempotency.examples.ExampleSettings;
import dev.idempotency.examples.NewOrder;
import dev.idempotency.examples.Order;
import dev.idempotency.examples.ProblemException;
import dev.idempotency.examples.Tenants;
import dev.idempotency.javalin.IdempotencyPlugin;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.sql.Connection;
import java.util.Collections;
import java.util.Optional;

/**
 * The orders/payments example on Javalin 7. The idempotency part is the one
 * {@code registerPlugin} line; the routes are ordinary Javalin handlers.
 */
public final class JavalinExample {

    /**
     * The longest body Javalin reads, raised from its default 1,000,000 bytes to the engine's
     * {@code maxRequestBodyBytes}, 1 MiB, so that one limit holds with a key or without.
     */
    static final long MAX_REQUEST_BYTES = 1 << 20;

    private JavalinExample() {
    }

    public static void main(String[] args) {
        ExampleApp app = ExampleApp.create(ExampleSettings.fromEnvironmentOrExit());
        Javalin server;
        try {
            server = start(app);
        } catch (RuntimeException e) {
            app.close();
            throw e;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "example-shutdown"));
        System.out.println(app.startupLine("javalin", server.port()));
    }

    /** Starts the service on {@code app.settings().port()} (0: any free port), bound to {@code HOST} when set; stopping it closes {@code app}. */
    public static Javalin start(ExampleApp app) {
        Javalin javalin = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            cfg.startup.showOldJavalinVersionWarning = false;
            cfg.http.maxRequestSize = MAX_REQUEST_BYTES;
            app.engine().ifPresent(engine -> cfg.registerPlugin(
                    new IdempotencyPlugin(engine, ExampleApp.IDEMPOTENT_PATHS.toArray(String[]::new))));

            cfg.routes.post("/orders", ctx -> {
                NewOrder order = ExampleRequests.order(ctx.bodyAsBytes());
                Order created = app.createOrder(transaction(ctx), tenant(ctx), order, ctx.queryParam("delayMs"));
                ctx.status(201).header("Location", "/orders/" + created.id()).json(created);
            });
            cfg.routes.get("/orders", ctx -> ctx.json(app.repository().orders(tenant(ctx))));
            cfg.routes.get("/orders/{id}", ctx -> {
                String id = ctx.pathParam("id");
                long orderId = ExampleRequests.id(id).orElseThrow(() -> ProblemException.notFound("No order " + id));
                ctx.json(app.repository().order(tenant(ctx), orderId)
                        .orElseThrow(() -> ProblemException.notFound("No order " + id)));
            });
            cfg.routes.post("/payments", ctx -> ctx.json(
                    app.createPayment(transaction(ctx), tenant(ctx), ExampleRequests.payment(ctx.bodyAsBytes()))));
            cfg.routes.get("/payments", ctx -> ctx.json(app.repository().payments(tenant(ctx))));

            cfg.routes.exception(ProblemException.class, (e, ctx) -> write(ctx, e.reply()));
            cfg.events.serverStopped(app::close);
        });
        Optional<String> host = app.settings().host();
        return host.isPresent() ? javalin.start(host.get(), app.settings().port()) : javalin.start(app.settings().port());
    }

    /**
     * The atomic mode's transaction of this request, where its writes go so that they commit with
     * the stored response; empty in the other modes and for requests without a key.
     */
    private static Optional<Connection> transaction(Context ctx) {
        return IdempotencyPlugin.execution(ctx).flatMap(execution -> execution.unwrap(Connection.class));
    }

    /** The demo tenant header; real applications take the tenant from authentication. */
    private static String tenant(Context ctx) {
        return Tenants.of(Collections.list(ctx.req().getHeaders(Tenants.HEADER)));
    }

    private static void write(Context ctx, HttpReply reply) {
        ctx.status(reply.status());
        reply.headers().forEach((name, values) -> ctx.header(name, String.join(", ", values)));
        ctx.result(reply.body());
    }
}
