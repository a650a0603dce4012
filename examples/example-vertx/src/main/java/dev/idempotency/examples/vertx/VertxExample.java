package dev.idempotency.examples.vertx;

import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleRequests;
import dev.idempotency.examples.ExampleSettings;
import dev.idempotency.examples.NewOrder;
import dev.idempotency.examples.NewPayment;
import dev.idempotency.examples.Order;
import dev.idempotency.examples.Payment;
import dev.idempotency.examples.ProblemException;
import dev.idempotency.examples.ShopRepository;
import dev.idempotency.examples.Tenants;
import dev.idempotency.vertx.IdempotencyHandler;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.sql.Connection;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The orders/payments example on Vert.x Web 5. The idempotency part is two lines: the handler on
 * the routes it guards, and {@code idempotency.wrap(router)} where the server starts (which lets
 * the handler see the bytes the routes write); the routes are ordinary Vert.x Web handlers.
 *
 * <p>Stores: with a PostgreSQL {@code DATABASE_URL} the records are kept by {@code PgStore} on the
 * reactive Vert.x PostgreSQL client ({@link VertxPgStore}; {@code IDEMPOTENCY_STORE=jdbc} keeps
 * {@code JdbcStore}); with {@code REDIS_URL} by {@code RedisStore}'s non-blocking face. The orders
 * and payments stay in plain JDBC ({@code ShopRepository}, blocking handlers) — except in the
 * atomic mode on {@code PgStore}, where a keyed request's order or payment is written through the
 * execution's {@link SqlConnection}, in the transaction that also stores the response.
 */
public final class VertxExample {

    private VertxExample() {
    }

    public static void main(String[] args) throws Exception {
        ExampleSettings settings = ExampleSettings.fromEnvironmentOrExit();
        Vertx vertx = Vertx.vertx();
        ExampleApp app;
        try {
            app = createApp(vertx, settings);
        } catch (RuntimeException e) {
            vertx.close();
            throw e;
        }
        HttpServer server;
        try {
            server = start(vertx, app).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            vertx.close();
            app.close();
            throw e;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                // Closes the server and the idempotency worker pools; then the engine and the database.
                vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                // shutting down anyway
            }
            app.close();
        }, "example-shutdown"));
        System.out.println(app.startupLine("vertx", server.actualPort()));
    }

    /**
     * The shared {@link ExampleApp} with what Vert.x adds: {@code PgStore} on a pool of
     * {@code vertx} for a PostgreSQL database, and non-blocking store faces (Redis).
     */
    public static ExampleApp createApp(Vertx vertx, ExampleSettings settings) {
        return ExampleApp.create(settings, new ExampleApp.StoreSupport(true,
                (s, url) -> VertxPgStore.open(vertx, s, url)));
    }

    /**
     * Starts the service on {@code app.settings().port()} (0: any free port). Closing {@code vertx}
     * stops it; {@code app} stays the caller's to close.
     */
    public static Future<HttpServer> start(Vertx vertx, ExampleApp app) {
        Router router = Router.router(vertx);
        router.route().handler(BodyHandler.create(false));
        Optional<IdempotencyHandler> idempotency = app.engine().map(engine -> IdempotencyHandler.create(vertx, engine));
        idempotency.ifPresent(handler -> ExampleApp.IDEMPOTENT_PATHS.forEach(path -> router.route(path).handler(handler)));

        // The repository is plain JDBC, so the routes run as blocking handlers (on Vert.x's worker
        // pool, unordered so requests do not queue behind each other's delayMs). The atomic mode's
        // transaction is used there too, never on the event loop.
        ShopRepository shop = app.repository();
        // The atomic mode on PgStore: the write goes through the transaction's SqlConnection, on the
        // event loop; every other request continues to the blocking JDBC handler.
        router.post("/orders").handler(ctx -> {
            Optional<SqlConnection> tx = sqlTransaction(ctx);
            if (tx.isEmpty()) {
                ctx.next();
                return;
            }
            NewOrder order = ExampleRequests.order(body(ctx));
            long delayMs = ExampleRequests.delayMillis(delayMs(ctx));
            tx.get().preparedQuery("INSERT INTO example_orders (tenant, item, quantity, status) "
                            + "VALUES ($1, $2, $3, 'created') RETURNING id")
                    .execute(Tuple.of(tenant(ctx), order.item(), order.quantity()))
                    .onFailure(e -> ctx.fail(ProblemException.databaseUnavailable(e)))
                    .onSuccess(rows -> {
                        Order created = new Order(rows.iterator().next().getLong(0), order.item(), order.quantity(),
                                "created");
                        // As with JDBC: written first, then delayMs waited inside the transaction.
                        Handler<Long> reply = timer -> {
                            ctx.response().setStatusCode(201).putHeader("Location", "/orders/" + created.id());
                            ctx.json(created);
                        };
                        if (delayMs > 0) {
                            vertx.setTimer(delayMs, reply);
                        } else {
                            reply.handle(0L);
                        }
                    });
        });
        router.post("/payments").handler(ctx -> {
            Optional<SqlConnection> tx = sqlTransaction(ctx);
            if (tx.isEmpty()) {
                ctx.next();
                return;
            }
            NewPayment payment = ExampleRequests.payment(body(ctx));
            tx.get().preparedQuery("INSERT INTO example_payments (tenant, amount, status) VALUES ($1, $2, $3) RETURNING id")
                    .execute(Tuple.of(tenant(ctx), payment.amount(), payment.outcome()))
                    .onFailure(e -> ctx.fail(ProblemException.databaseUnavailable(e)))
                    .onSuccess(rows -> ctx.json(new Payment(rows.iterator().next().getLong(0), payment.amount(),
                            payment.outcome())));
        });
        router.post("/orders").blockingHandler(ctx -> {
            NewOrder order = ExampleRequests.order(body(ctx));
            Order created = app.createOrder(transaction(ctx), tenant(ctx), order, delayMs(ctx));
            ctx.response().setStatusCode(201).putHeader("Location", "/orders/" + created.id());
            ctx.json(created);
        }, false);
        router.get("/orders").blockingHandler(ctx -> ctx.json(shop.orders(tenant(ctx))), false);
        router.get("/orders/:id").blockingHandler(ctx -> {
            String id = ctx.pathParam("id");
            long orderId = ExampleRequests.id(id).orElseThrow(() -> ProblemException.notFound("No order " + id));
            ctx.json(shop.order(tenant(ctx), orderId).orElseThrow(() -> ProblemException.notFound("No order " + id)));
        }, false);
        router.post("/payments").blockingHandler(
                ctx -> ctx.json(app.createPayment(transaction(ctx), tenant(ctx), ExampleRequests.payment(body(ctx)))),
                false);
        router.get("/payments").blockingHandler(ctx -> ctx.json(shop.payments(tenant(ctx))), false);

        router.route().failureHandler(ctx -> {
            if (ctx.failure() instanceof ProblemException problem) {
                write(ctx.response(), problem.reply());
            } else {
                ctx.next();
            }
        });

        Handler<HttpServerRequest> requests = idempotency.<Handler<HttpServerRequest>>map(h -> h.wrap(router))
                .orElse(router);
        HttpServer server = vertx.createHttpServer().requestHandler(requests);
        return app.settings().host().map(host -> server.listen(app.settings().port(), host))   // HOST
                .orElseGet(() -> server.listen(app.settings().port()));               // every interface
    }

    /**
     * The atomic mode's transaction of this request, where its writes go so that they commit with
     * the stored response; empty in the other modes and for requests without a key. Blocking
     * handlers only: a JDBC connection must not be used on the event loop.
     */
    private static Optional<Connection> transaction(RoutingContext ctx) {
        return IdempotencyHandler.execution(ctx).flatMap(execution -> execution.unwrap(Connection.class));
    }

    /**
     * The atomic mode's transaction on {@code PgStore}: the reactive connection the reservation
     * holds, where the route's write goes; empty in the other modes, with the other stores and for
     * requests without a key.
     */
    private static Optional<SqlConnection> sqlTransaction(RoutingContext ctx) {
        return IdempotencyHandler.execution(ctx).flatMap(execution -> execution.unwrap(SqlConnection.class));
    }

    /** The demo tenant header; real applications take the tenant from authentication. */
    private static String tenant(RoutingContext ctx) {
        return Tenants.of(ctx.request().headers().getAll(Tenants.HEADER));
    }

    /** The {@code delayMs} query parameter; a query string that does not decode ({@code %zz}) is a 400. */
    private static String delayMs(RoutingContext ctx) {
        try {
            return ctx.request().getParam("delayMs");
        } catch (IllegalArgumentException malformed) {
            throw ProblemException.validation("The query string has a malformed percent-escape");
        }
    }

    private static byte[] body(RoutingContext ctx) {
        Buffer body = ctx.body().buffer();
        return body == null ? new byte[0] : body.getBytes();
    }

    private static void write(HttpServerResponse response, HttpReply reply) {
        response.setStatusCode(reply.status());
        reply.headers().forEach((name, values) -> response.headers().set(name, values));
        response.end(Buffer.buffer(reply.body()));
    }
}
