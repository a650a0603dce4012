package dev.idempotency.micronaut;

import dev.idempotency.testkit.TenantFromAuthenticationChecks;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.TenantResolver;
import io.micronaut.context.ApplicationContext;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.security.authentication.AuthenticationFailureReason;
import io.micronaut.security.authentication.AuthenticationRequest;
import io.micronaut.security.authentication.AuthenticationResponse;
import io.micronaut.security.authentication.Authentication;
import io.micronaut.security.authentication.provider.HttpRequestAuthenticationProvider;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The README's "Tenant from authentication" recipe with micronaut-security (basic auth, two users
 * of two tenants), and what the same resolver does in an application without it.
 */
class TenantFromAuthenticationTest {

    /** The README's resolver: the tenant is an attribute of the request's {@link Authentication}. */
    static final class AuthenticationTenants implements TenantResolver {
        final List<Optional<String>> unwrappedAsString = new CopyOnWriteArrayList<>();

        @Override
        public Optional<String> resolve(RequestView view) {
            unwrappedAsString.add(view.unwrap(String.class));
            return view.unwrap(HttpRequest.class).flatMap(AuthenticationTenants::tenantOf);
        }

        // --- as in README.md, "Tenant from authentication"
        static Optional<String> tenantOf(HttpRequest<?> request) {
            return request.getUserPrincipal(Authentication.class)   // set by micronaut-security's filter
                    .map(authentication -> authentication.getAttributes().get("tenant"))
                    .map(Object::toString);
        }
        // ---
    }

    /**
     * Basic auth: alice is tenant-a, bob is tenant-b (a token validator would do the same); also
     * {@link CallerSeparationTest}'s users.
     */
    @jakarta.inject.Singleton
    @io.micronaut.context.annotation.Requires(property = "test.routes", pattern = "tenants|callers")
    static final class Users implements HttpRequestAuthenticationProvider<Object> {
        private static final Map<String, String> TENANTS = Map.of("alice", "tenant-a", "bob", "tenant-b");

        @Override
        public AuthenticationResponse authenticate(@Nullable HttpRequest<Object> request,
                                                   AuthenticationRequest<String, String> auth) {
            String tenant = TENANTS.get(auth.getIdentity());
            return tenant != null && "secret".equals(auth.getSecret())
                    ? AuthenticationResponse.success(auth.getIdentity(), List.of(), Map.of("tenant", tenant))
                    : AuthenticationResponse.failure(AuthenticationFailureReason.CREDENTIALS_DO_NOT_MATCH);
        }
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final String BODY = "{\"item\":\"book\",\"quantity\":1}";

    private ApplicationContext context;
    private URI base;
    private AuthenticationTenants tenants;

    private TenantOrdersController start(boolean security) {
        tenants = new AuthenticationTenants();
        context = ApplicationContext.builder()
                .properties(Map.of(
                        "micronaut.server.port", -1,
                        "micronaut.server.host", "127.0.0.1",
                        "micronaut.security.enabled", security,
                        "micronaut.security.intercept-url-map",
                        List.of(Map.of("pattern", "/**", "access", List.of("isAuthenticated()"))),
                        "idempotency.enabled", true,
                        "idempotency.paths", List.of("/tenant-orders"),
                        "test.routes", "tenants"))
                .singletons(tenants)
                .start();
        EmbeddedServer server = context.getBean(EmbeddedServer.class).start();
        base = URI.create("http://127.0.0.1:" + server.getPort());
        return context.getBean(TenantOrdersController.class);
    }

    @AfterEach
    void stop() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void twoTenantsWithTheSameKeyEachGetTheirOwnRecordAndTheirOwnReplay() throws Exception {
        TenantOrdersController controller = start(true);
        TenantFromAuthenticationChecks.sameKeyTwoTenants(this::post, "alice:secret", "bob:secret",
                "\"user\":\"alice\"", "\"user\":\"bob\"");

        assertThat(controller.runsBy).containsExactly("alice", "bob");
        assertThat(tenants.unwrappedAsString).isNotEmpty().allSatisfy(unwrapped -> assertThat(unwrapped).isEmpty());
    }

    @Test
    void withoutCredentialsSecurityAnswers401BeforeTheEngineSeesTheRequest() throws Exception {
        TenantOrdersController controller = start(true);
        TenantFromAuthenticationChecks.refusedCallersReserveNothing(this::post, "alice:guess", "alice:secret");

        assertThat(controller.runsBy).containsExactly("alice");
    }

    @Test
    void withoutMicronautSecurityThereIsNoAuthenticationAndEveryKeyedPostIsTenantUnknown() throws Exception {
        TenantOrdersController controller = start(false);   // no security filter: nothing authenticates
        HttpResponse<String> keyed = post("alice:secret", "k-3");
        HttpResponse<String> unkeyed = post("alice:secret", null);

        assertThat(keyed.statusCode()).isEqualTo(400);
        assertThat(keyed.body()).contains("idempotency_tenant_unknown");
        assertThat(unkeyed.statusCode()).as("a request without a key is passed through").isEqualTo(201);
        assertThat(controller.runsBy).containsExactly("anonymous");
    }

    private HttpResponse<String> post(String credentials, String key) throws Exception {
        java.net.http.HttpRequest.Builder request = java.net.http.HttpRequest.newBuilder(base.resolve("/tenant-orders"))
                .header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(BODY));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        if (credentials != null) {
            request.header("Authorization", "Basic "
                    + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
