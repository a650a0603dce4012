package dev.idempotency.quarkus;

import dev.idempotency.testkit.ConformanceApp;
import dev.idempotency.testkit.HostileClientChecks;
import io.smallrye.common.annotation.Blocking;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * {@link ConformanceApp}'s routes, written the usual Jakarta REST way; the asynchronous one is
 * {@code @Blocking}, as a covered method must be on Quarkus REST.
 */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public class ConformanceResource {

    private static ConformanceApp app() {
        return ConformanceTarget.app();
    }

    @POST
    @Path("orders")
    public Response createOrder(byte[] body, @QueryParam("delayMs") String delayMs) {
        return created(app().createOrder(body, delayMs), true);
    }

    private static Response created(Map<String, Object> order, boolean extras) {
        String id = String.valueOf(order.get("id"));
        Response.ResponseBuilder response = Response.created(URI.create("/orders/" + id)).entity(order);
        if (extras) {
            response.header("X-Order-Seq", id).cookie(new NewCookie.Builder("session").value(id).build());
        }
        return response.build();
    }

    @POST
    @Path("payments")
    public Map<String, Object> createPayment(byte[] body) {
        return app().createPayment(body);
    }

    @POST
    @Path("orders/bulk")
    public Map<String, Object> createBulk(byte[] body) {
        return app().createBulk(body);
    }

    @POST
    @Path("orders/{id}")
    public Map<String, Object> updateOrder(@PathParam("id") String id, byte[] body) {
        return app().updateOrder(id, body);
    }

    @POST
    @Path("reject")
    public Response reject() {
        return Response.status(400).entity(app().reject()).build();
    }

    @POST
    @Path("fail")
    public Object fail() {
        return app().fail();
    }

    @POST
    @Path("text")
    @Produces("text/plain; charset=utf-8")
    public String text() {
        return app().text();
    }

    @GET
    @Path("orders")
    public List<Map<String, Object>> listOrders() {
        return app().listOrders();
    }

    @POST
    @Path("async")
    @Blocking
    public CompletionStage<Response> createOrderLater(byte[] body, @QueryParam("delayMs") String delayMs,
            @Context UriInfo uri) {
        // resolved here: Quarkus REST resolves a relative Location only on the request's own thread
        URI base = uri.getBaseUri();
        return app().createOrderLater(body, delayMs).thenApply(order -> Response
                .created(base.resolve("orders/" + order.get("id"))).entity(order).build());
    }

    /** Jakarta REST's own asynchronous timeout: an {@code AsyncResponse} that gives up first (503). */
    @POST
    @Path("timeout")
    public void createOrderTooLate(byte[] body, @QueryParam("delayMs") String delayMs, @Context UriInfo uri,
            @Suspended AsyncResponse async) {
        URI base = uri.getBaseUri();
        async.setTimeout(HostileClientChecks.SERVER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        app().createOrderTooLate(body, delayMs).thenAccept(order -> async.resume(Response
                .created(base.resolve("orders/" + order.get("id"))).entity(order).build()));
    }

    @POST
    @Path("mapped")
    public Object createOrderByException(byte[] body) {
        return app().createOrderByException(body);
    }

    /** Answers {@link ConformanceApp.Mapped} with 201, as {@code POST /mapped} asks. */
    @Provider
    public static class MappedAsCreated implements ExceptionMapper<ConformanceApp.Mapped> {
        @Override
        public Response toResponse(ConformanceApp.Mapped exception) {
            return Response.created(URI.create(exception.location())).entity(exception.order()).build();
        }
    }

    @POST
    @Path("stream")
    @Produces("text/plain; charset=utf-8")
    public Response stream(@QueryParam("delayMs") String delayMs) {
        ConformanceApp.Chunks stream = app().streamChunks();
        long delay = delayMs == null ? 0 : Long.parseLong(delayMs);
        StreamingOutput chunks = out -> {
            for (int i = 0; i < stream.chunks().size(); i++) {
                if (i > 0) {
                    pause(delay);
                }
                out.write(stream.chunks().get(i).getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        };
        return Response.ok(chunks).header("Location", stream.location()).build();
    }

    @POST
    @Path("large")
    public Response large(@QueryParam("bytes") String bytes, @QueryParam("type") String type,
            @QueryParam("delayMs") String delayMs) {
        ConformanceApp.Blob blob = app().large(bytes, type, delayMs);
        return Response.status(201).type(blob.contentType()).header("Location", blob.location())
                .entity(blob.body()).build();
    }

    private static void pause(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException();
        }
    }
}
