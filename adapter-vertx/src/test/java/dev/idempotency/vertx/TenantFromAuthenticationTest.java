package dev.idempotency.vertx;

import dev.idempotency.testkit.TenantFromAuthenticationChecks;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.TenantResolver;
import dev.idempotency.core.store.InMemoryStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.User;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.AuthenticationHandler;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.HttpException;
import io.vertx.ext.web.handler.SimpleAuthenticationHandler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The README's "Tenant from authentication" recipe, line for line: an {@link AuthenticationHandler}
 * checks the token and sets the user; the resolver reads {@code RoutingContext.user()} through
 * {@code RequestView.unwrap(RoutingContext.class)}.
 */
class TenantFromAuthenticationTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String BODY = "{\"item\":\"book\",\"quantity\":1}";

    private final AtomicInteger runs = new AtomicInteger();
    private final List<String> runsBy = new CopyOnWriteArrayList<>();
    private final List<Optional<String>> unwrappedAsString = new CopyOnWriteArrayList<>();
    private Vertx vertx;
    private IdempotencyEngine engine;
    private HttpServer server;

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        Map<String, String> tenantsByToken = Map.of("token-a", "tenant-a", "token-b", "tenant-b");
        // --- as in README.md, "Tenant from authentication"
        TenantResolver fromAuthentication = view -> view.unwrap(RoutingContext.class)
                .map(RoutingContext::user)
                .map(user -> user.get("tenant"))
                .map(String::valueOf);
        // ---
        TenantResolver probing = view -> {
            unwrappedAsString.add(view.unwrap(String.class));
            return fromAuthentication.resolve(view);
        };
        engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.builder()
                .tenantResolver(probing)
                .build());
        IdempotencyHandler idempotency = IdempotencyHandler.create(vertx, engine);
        // --- as in README.md, "Tenant from authentication"
        AuthenticationHandler bearer = SimpleAuthenticationHandler.create().authenticate(ctx -> {
            String header = ctx.request().getHeader("Authorization");
            String tenant = header == null || !header.startsWith("Bearer ")
                    ? null : tenantsByToken.get(header.substring("Bearer ".length()));
            return tenant == null
                    ? Future.failedFuture(new HttpException(401))   // 401: the engine never sees it
                    : Future.succeededFuture(User.create(new JsonObject().put("sub", "client").put("tenant", tenant)));
        });
        Router router = Router.router(vertx);
        router.route().handler(BodyHandler.create(false));
        router.post("/orders").handler(bearer).handler(idempotency).handler(this::create);
        // ---
        server = ConformanceRoutes.listen(vertx, idempotency, router);
    }

    private void create(RoutingContext ctx) {
        String tenant = ctx.user().principal().getString("tenant");
        runsBy.add(tenant);
        ctx.response().setStatusCode(201).putHeader("Content-Type", "application/json")
                .end(new JsonObject().put("order", runs.incrementAndGet()).put("tenant", tenant).encode());
    }

    @AfterEach
    void stop() throws Exception {
        engine.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void twoTenantsWithTheSameKeyEachGetTheirOwnRecordAndTheirOwnReplay() throws Exception {
        TenantFromAuthenticationChecks.sameKeyTwoTenants(this::post, "token-a", "token-b", "\"tenant\":\"tenant-a\"", "\"tenant\":\"tenant-b\"");

        assertThat(runsBy).containsExactly("tenant-a", "tenant-b");
        assertThat(unwrappedAsString).isNotEmpty().allSatisfy(unwrapped -> assertThat(unwrapped).isEmpty());
    }

    @Test
    void withoutAValidTokenTheAnswerIs401AndNothingRuns() throws Exception {
        TenantFromAuthenticationChecks.refusedCallersReserveNothing(this::post, "token-x", "token-a");

        assertThat(runsBy).containsExactly("tenant-a");
    }

    private HttpResponse<String> post(String token, String key) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.actualPort() + "/orders"))
                .header("Idempotency-Key", key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(BODY));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
