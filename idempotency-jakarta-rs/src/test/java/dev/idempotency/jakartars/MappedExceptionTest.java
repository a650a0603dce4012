package dev.idempotency.jakartars;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.testkit.RawResponse;
import dev.idempotency.testkit.internal.RawHttp;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the client saw decides: a resource that throws, answered with a 2xx by an exception mapper
 * (or by a {@code WebApplicationException} carrying one), is stored like any 2xx; mapped to a
 * non-2xx, its key is released.
 */
class MappedExceptionTest {

    private static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

    private static IdempotencyEngine engine;
    private static JerseyServer server;

    static final class Declined extends RuntimeException {
        Declined() {
            super("declined", null, false, false);
        }
    }

    static final class Busy extends RuntimeException {
        Busy() {
            super("busy", null, false, false);
        }
    }

    /** Answers a declined order with a 200, as some APIs do. */
    public static class DeclinedAsOk implements ExceptionMapper<Declined> {
        @Override
        public Response toResponse(Declined exception) {
            return Response.ok("{\"status\":\"declined\"}", "application/json").build();
        }
    }

    public static class BusyAsConflict implements ExceptionMapper<Busy> {
        @Override
        public Response toResponse(Busy exception) {
            return Response.status(409).entity("{\"status\":\"busy\"}").type("application/json").build();
        }
    }

    @Path("/")
    public static class Orders {
        @POST
        @Path("declined")
        public Response decline() {
            ran("declined");
            throw new Declined();
        }

        @POST
        @Path("created")
        public Response createByException() {
            int run = ran("created");
            throw new WebApplicationException(Response.status(201).entity("{\"run\":" + run + "}")
                    .type("application/json").build());
        }

        @POST
        @Path("busy")
        public Response busy() {
            ran("busy");
            throw new Busy();
        }
    }

    static int ran(String route) {
        return RUNS.computeIfAbsent(route, r -> new AtomicInteger()).incrementAndGet();
    }

    static int runs(String route) {
        return RUNS.computeIfAbsent(route, r -> new AtomicInteger()).get();
    }

    @BeforeAll
    static void start() throws Exception {
        engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.builder().build());
        server = JerseyServer.start(new ResourceConfig(Orders.class, DeclinedAsOk.class, BusyAsConflict.class)
                .register(IdempotencyFeature.of(engine)));
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
    }

    /** The first request and its retry, under one key. */
    private record Twice(RawResponse first, RawResponse retry) {
    }

    private static Twice sendTwice(String path) throws Exception {
        String key = "key-" + UUID.randomUUID();
        return new Twice(RawHttp.post(server.baseUri(), path, key, "{}"), RawHttp.post(server.baseUri(), path, key, "{}"));
    }

    @Test
    void aResourceThatThrowsIsStoredWhenAMapperAnswersA2xx() throws Exception {
        Twice sent = sendTwice("/declined");

        assertThat(sent.first().status()).isEqualTo(200);
        assertThat(sent.retry().replayed()).as("stored like any 2xx").isTrue();
        assertThat(sent.retry().bodyText()).isEqualTo(sent.first().bodyText());
        assertThat(runs("declined")).isEqualTo(1);
    }

    @Test
    void aWebApplicationExceptionCarryingA201IsStored() throws Exception {
        Twice sent = sendTwice("/created");

        assertThat(sent.first().status()).isEqualTo(201);
        assertThat(sent.retry().replayed()).isTrue();
        assertThat(sent.retry().bodyText()).isEqualTo(sent.first().bodyText()).isEqualTo("{\"run\":1}");
        assertThat(runs("created")).isEqualTo(1);
    }

    @Test
    void aResourceThatThrowsReleasesItsKeyWhenMappedToANon2xx() throws Exception {
        Twice sent = sendTwice("/busy");

        assertThat(sent.first().status()).isEqualTo(409);
        assertThat(sent.retry().status()).isEqualTo(409);
        assertThat(sent.retry().replayed()).as("released, not stored").isFalse();
        assertThat(runs("busy")).isEqualTo(2);
    }
}
