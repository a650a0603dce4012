package dev.idempotency.javalin;

import dev.idempotency.testkit.TenantFromAuthenticationChecks;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.TenantResolver;
import dev.idempotency.core.store.InMemoryStore;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.UnauthorizedResponse;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The README's "Tenant from authentication" recipe, line for line: a before handler checks the
 * token and files the tenant as a request attribute; the resolver reads it through
 * {@code RequestView.unwrap(Context.class)}.
 */
class TenantFromAuthenticationTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String BODY = "{\"item\":\"book\",\"quantity\":1}";

    private final AtomicInteger runs = new AtomicInteger();
    private final List<String> runsBy = new CopyOnWriteArrayList<>();
    private final List<Optional<String>> unwrappedAsString = new CopyOnWriteArrayList<>();
    private IdempotencyEngine engine;
    private Javalin app;

    @BeforeEach
    void start() {
        Map<String, String> tenantsByToken = Map.of("token-a", "tenant-a", "token-b", "tenant-b");
        // --- as in README.md, "Tenant from authentication"
        TenantResolver fromAuthentication = view -> view.unwrap(Context.class)
                .map(ctx -> ctx.<String>attribute("tenant"));
        // ---
        TenantResolver probing = view -> {
            unwrappedAsString.add(view.unwrap(String.class));
            return fromAuthentication.resolve(view);
        };
        engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.builder()
                .tenantResolver(probing)
                .build());
        app = Javalin.create(cfg -> {
            // --- as in README.md, "Tenant from authentication"
            cfg.routes.before("/orders", ctx -> {
                String header = ctx.header("Authorization");
                String tenant = header == null || !header.startsWith("Bearer ")
                        ? null : tenantsByToken.get(header.substring("Bearer ".length()));
                if (tenant == null) {
                    throw new UnauthorizedResponse();     // 401: the engine never sees the request
                }
                ctx.attribute("tenant", tenant);
            });
            cfg.registerPlugin(new IdempotencyPlugin(engine, "/orders"));
            // ---
            cfg.routes.post("/orders", ctx -> {
                String tenant = ctx.attribute("tenant");
                runsBy.add(tenant);
                ctx.status(201).json(Map.of("order", runs.incrementAndGet(), "tenant", tenant));
            });
        }).start("127.0.0.1", 0);
    }

    @AfterEach
    void stop() {
        app.stop();
        engine.close();
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
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/orders"))
                .header("Idempotency-Key", key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(BODY));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
