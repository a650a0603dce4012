package dev.idempotency.jakartars;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.testkit.RawResponse;
import dev.idempotency.testkit.internal.RawHttp;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * On Jersey a resource that throws releases its key even when an exception mapper answers a 2xx:
 * the request's events tell the feature what Jakarta REST does not.
 */
class MappedExceptionTest {

    private static final AtomicInteger RUNS = new AtomicInteger();

    private static IdempotencyEngine engine;
    private static JerseyServer server;

    static final class Declined extends RuntimeException {
        Declined() {
            super("declined", null, false, false);
        }
    }

    /** Answers a declined order with a 200, as some APIs do. */
    public static class DeclinedAsOk implements ExceptionMapper<Declined> {
        @Override
        public Response toResponse(Declined exception) {
            return Response.ok("{\"status\":\"declined\"}", "application/json").build();
        }
    }

    @Path("/orders")
    public static class Orders {
        @POST
        public Response create() {
            RUNS.incrementAndGet();
            throw new Declined();
        }
    }

    @BeforeAll
    static void start() throws Exception {
        engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.builder().build());
        server = JerseyServer.start(new ResourceConfig(Orders.class, DeclinedAsOk.class)
                .register(IdempotencyFeature.of(engine)));
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
    }

    @Test
    void aResourceThatThrowsReleasesItsKeyEvenWhenMappedToA2xx() throws Exception {
        String key = "key-" + UUID.randomUUID();
        RawResponse first = RawHttp.post(server.baseUri(), "/orders", key, "{}");
        RawResponse retry = RawHttp.post(server.baseUri(), "/orders", key, "{}");

        assertThat(first.status()).isEqualTo(200);
        assertThat(retry.status()).isEqualTo(200);
        assertThat(retry.replayed()).as("released, not stored").isFalse();
        assertThat(RUNS.get()).isEqualTo(2);
    }
}
