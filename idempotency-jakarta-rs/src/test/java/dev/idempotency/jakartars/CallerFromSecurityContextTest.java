package dev.idempotency.jakartars;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.testkit.CallerChecks;
import jakarta.annotation.Priority;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The test kit's caller checks: records are filed under {@code SecurityContext.getUserPrincipal()},
 * as an authentication filter (here HTTP Basic, at {@link Priorities#AUTHENTICATION}) sets it.
 */
class CallerFromSecurityContextTest {

    /** The empty name is a user too: its principal's name is {@code ""}. */
    private static final Map<String, String> PASSWORDS = Map.of("alice", "alice-pw", "bob", "bob-pw",
            "", "nameless-pw");
    private static final String ALICE = "alice:alice-pw";
    private static final String BOB = "bob:bob-pw";
    private static final AtomicInteger RUNS = new AtomicInteger();

    private static IdempotencyEngine engine;
    private static JerseyServer server;
    private static CallerChecks.Post post;

    @Path("/orders")
    public static class Orders {
        @POST
        public Response create(@Context SecurityContext security) {
            Principal user = security.getUserPrincipal();
            String caller = user == null ? "anonymous" : user.getName();
            return Response.status(201).type("application/json")
                    .entity("{\"order\":" + RUNS.incrementAndGet() + ",\"caller\":\"" + caller + "\"}").build();
        }
    }

    /** HTTP Basic when the request carries credentials (wrong ones: 401); anonymous otherwise. */
    @Priority(Priorities.AUTHENTICATION)
    public static class BasicAuthentication implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            String authorization = request.getHeaderString("Authorization");
            if (authorization == null) {
                return;
            }
            String[] credentials = new String(Base64.getDecoder().decode(authorization.substring("Basic ".length())),
                    StandardCharsets.UTF_8).split(":", 2);
            if (credentials.length != 2 || !credentials[1].equals(PASSWORDS.get(credentials[0]))) {
                request.abortWith(Response.status(401).build());
                return;
            }
            Principal principal = () -> credentials[0];
            request.setSecurityContext(new SecurityContext() {
                @Override
                public Principal getUserPrincipal() {
                    return principal;
                }

                @Override
                public boolean isUserInRole(String role) {
                    return false;
                }

                @Override
                public boolean isSecure() {
                    return false;
                }

                @Override
                public String getAuthenticationScheme() {
                    return SecurityContext.BASIC_AUTH;
                }
            });
        }
    }

    @BeforeAll
    static void start() throws Exception {
        engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.builder().build());
        server = JerseyServer.start(new ResourceConfig(Orders.class, BasicAuthentication.class)
                .register(IdempotencyFeature.of(engine)));
        post = CallerChecks.basicAuthPost(server.baseUri().resolve("/orders"));
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
    }

    @Test
    void twoCallersOneKeyEachGetTheirOwn() throws Exception {
        CallerChecks.twoCallersOneKeyEachGetTheirOwn(post, RUNS::get, ALICE, BOB);
    }

    @Test
    void concurrentCallersOneKeyRunOncePerCaller() throws Exception {
        CallerChecks.concurrentCallersOneKeyRunOncePerCaller(post, RUNS::get, ALICE, BOB);
    }

    @Test
    void anotherCallersKeyTellsNothing() throws Exception {
        CallerChecks.anotherCallersKeyTellsNothing(post, RUNS::get, ALICE, BOB);
    }

    @Test
    void anonymousNeverReplaysAuthenticated() throws Exception {
        CallerChecks.anonymousNeverReplaysAuthenticated(post, RUNS::get, ALICE);
    }

    @Test
    void wrongCredentialsAre401AndReserveNothing() throws Exception {
        CallerChecks.wrongCredentialsReserveNothing(post, RUNS::get, "alice:wrong", ALICE);
    }

    @Test
    void aPrincipalWithAnEmptyNameIsRefusedNeverAnonymous() throws Exception {
        CallerChecks.unidentifiedCallerIsRefused(post, RUNS::get, ":nameless-pw");
    }
}
