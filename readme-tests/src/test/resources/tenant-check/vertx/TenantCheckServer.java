package quickstart;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.vertx.IdempotencyHandler;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.User;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.AuthenticationHandler;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.HttpException;
import io.vertx.ext.web.handler.SimpleAuthenticationHandler;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Not a README block: readme-tests adds it to the Vert.x quick start to run the README's
 * TenantFromAuthentication.RESOLVER behind an authentication handler that puts the tenant on the user.
 */
public final class TenantCheckServer {

    public static void main(String[] args) {
        Vertx vertx = Vertx.vertx();
        AtomicLong ids = new AtomicLong();
        IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(),
                IdempotencyConfig.builder().tenantResolver(TenantFromAuthentication.RESOLVER).build());
        IdempotencyHandler idempotency = IdempotencyHandler.create(vertx, engine);
        AuthenticationHandler authentication = SimpleAuthenticationHandler.create().authenticate(ctx -> {
            String tenant = ctx.request().getHeader("X-Test-Tenant");
            return tenant == null ? Future.failedFuture(new HttpException(401))
                    : Future.succeededFuture(User.create(new JsonObject().put("sub", "client").put("tenant", tenant)));
        });
        Router router = Router.router(vertx);
        router.route().handler(BodyHandler.create(false));
        router.post("/orders").handler(authentication).handler(idempotency).handler(ctx -> ctx.response()
                .setStatusCode(201).end("{\"id\":" + ids.incrementAndGet() + "}"));
        vertx.createHttpServer().requestHandler(idempotency.wrap(router))
                .listen(Integer.parseInt(System.getenv("PORT")));
    }
}
