package dev.idempotency.quarkus;

import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The application's own resources under {@code idempotency.paths=/app/**}: one Quarkus runs on a
 * worker thread, one returning {@code Uni} made {@code @Blocking}, one returning {@code Uni} that
 * Quarkus runs on the event loop (recording whether it did), a {@code GET} returning
 * {@code Uni} (the engine does not cover {@code GET}), and the routes of {@link QuarkusApplicationTest}'s
 * checks of what clients saw.
 */
@Path("/app")
@Produces(MediaType.APPLICATION_JSON)
public class OrdersResource {

    static final AtomicInteger ORDERS = new AtomicInteger();
    static final AtomicInteger LATER = new AtomicInteger();
    static final AtomicInteger REACTIVE = new AtomicInteger();
    static final AtomicInteger DECLINED = new AtomicInteger();
    static final AtomicInteger ITEMS = new AtomicInteger();
    static final AtomicInteger EMPTY = new AtomicInteger();
    static final AtomicInteger STREAMED = new AtomicInteger();
    static final AtomicInteger SLOW_REACTIVE = new AtomicInteger();
    /** The ids {@link #updateItem} received, as Quarkus REST decoded them. */
    static final Queue<String> ITEM_IDS = new ConcurrentLinkedQueue<>();
    /** For each run of {@link #createReactive}: whether it ran on an event loop. */
    static final Queue<Boolean> REACTIVE_ON_EVENT_LOOP = new ConcurrentLinkedQueue<>();

    @POST
    @Path("orders")
    public Response create(byte[] body) {
        int id = ORDERS.incrementAndGet();
        return Response.status(201).header("Location", "/app/orders/" + id).header("X-Order-Id", id)
                .entity("{\"id\":" + id + "}").build();
    }

    @POST
    @Path("later")
    @Blocking
    public Uni<Response> createLater(byte[] body) {
        int id = LATER.incrementAndGet();
        return Uni.createFrom().item(id).onItem().delayIt().by(Duration.ofMillis(300))
                .map(n -> Response.status(201).header("Location", "/app/later/" + n).entity("{\"id\":" + n + "}").build());
    }

    @POST
    @Path("reactive")
    public Uni<Response> createReactive(byte[] body) {
        int id = REACTIVE.incrementAndGet();
        REACTIVE_ON_EVENT_LOOP.add(Context.isOnEventLoopThread());
        return Uni.createFrom().item(id).onItem().delayIt().by(Duration.ofMillis(300))
                .map(n -> Response.status(201).header("Location", "/app/reactive/" + n).entity("{\"id\":" + n + "}").build());
    }

    /** Always declines, which {@link DeclinedAsOk} answers with a 200, as some APIs do. */
    @POST
    @Path("declined")
    public Response decline(byte[] body) {
        DECLINED.incrementAndGet();
        throw new Declined();
    }

    static final class Declined extends RuntimeException {
        Declined() {
            super("declined", null, false, false);
        }
    }

    @Provider
    public static class DeclinedAsOk implements ExceptionMapper<Declined> {
        @Override
        public Response toResponse(Declined exception) {
            return Response.ok("{\"status\":\"declined\"}", MediaType.APPLICATION_JSON).build();
        }
    }

    @POST
    @Path("items/{id}")
    public Response updateItem(@PathParam("id") String id, byte[] body) {
        ITEM_IDS.add(id);
        return Response.ok("{\"run\":" + ITEMS.incrementAndGet() + "}").build();
    }

    @POST
    @Path("empty")
    public Response empty(byte[] body) {
        EMPTY.incrementAndGet();
        return Response.noContent().build();
    }

    /** Sends its 201 and a first chunk, then fails. */
    @POST
    @Path("broken-stream")
    public Response brokenStream(byte[] body) {
        STREAMED.incrementAndGet();
        StreamingOutput failing = out -> {
            out.write("chunk 1\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            throw new IOException("the source is gone");
        };
        return Response.status(201).entity(failing).type(MediaType.TEXT_PLAIN).build();
    }

    /** A {@code Uni} answered {@code delayMs} later, which Quarkus REST cancels when the client goes away. */
    @POST
    @Path("slow-reactive")
    public Uni<Response> createSlowly(byte[] body, @QueryParam("delayMs") long delayMs) {
        int id = SLOW_REACTIVE.incrementAndGet();
        return Uni.createFrom().item(id).onItem().delayIt().by(Duration.ofMillis(delayMs))
                .map(n -> Response.status(201).entity("{\"id\":" + n + "}").build());
    }

    @GET
    @Path("orders")
    public Uni<String> list() {
        return Uni.createFrom().item("[]");
    }
}
