package quickstart;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.javalin.IdempotencyPlugin;
import io.javalin.Javalin;
import io.javalin.http.UnauthorizedResponse;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Not a README block: readme-tests adds it to the Javalin quick start to run the README's
 * TenantFromAuthentication.RESOLVER behind a before handler that stands in for authentication.
 */
public final class TenantCheckServer {

    public static void main(String[] args) {
        AtomicLong ids = new AtomicLong();
        IdempotencyEngine engine = new IdempotencyEngine(new InMemoryStore(),
                IdempotencyConfig.builder().tenantResolver(TenantFromAuthentication.RESOLVER).build());
        Javalin.create(cfg -> {
            cfg.routes.before("/orders", ctx -> {
                String tenant = ctx.header("X-Test-Tenant");
                if (tenant == null) {
                    throw new UnauthorizedResponse();
                }
                ctx.attribute("tenant", tenant);
            });
            cfg.registerPlugin(new IdempotencyPlugin(engine, "/orders"));
            cfg.routes.post("/orders", ctx -> ctx.status(201).result("{\"id\":" + ids.incrementAndGet() + "}"));
        }).start(Integer.parseInt(System.getenv("PORT")));
    }
}
