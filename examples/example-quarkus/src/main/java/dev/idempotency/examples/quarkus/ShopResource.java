package dev.idempotency.examples.quarkus;

import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleRequests;
import dev.idempotency.examples.Order;
import dev.idempotency.examples.Payment;
import dev.idempotency.examples.ProblemException;
import dev.idempotency.examples.Tenants;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Optional;

/**
 * The service's routes, plain Quarkus REST resource methods: returning plain types, they run on
 * worker threads, where the idempotency filters may block on the store. Bodies are read as bytes
 * and checked by the shared rules ({@link ExampleRequests}), so every framework's example accepts
 * and refuses the same requests; a refusal is a {@link ProblemException}, answered by
 * {@link ProblemMapper}.
 */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public class ShopResource {

    private final ExampleApp app;

    ShopResource(ExampleApp app) {
        this.app = app;
    }

    @POST
    @Path("orders")
    public Response createOrder(byte[] body, @QueryParam("delayMs") String delayMs, @Context HttpHeaders headers) {
        Order created = app.createOrder(Optional.empty(), tenant(headers), ExampleRequests.order(body), delayMs);
        // A header as written: Response.created would make the location absolute.
        return Response.status(Response.Status.CREATED).header("Location", "/orders/" + created.id())
                .entity(created).build();
    }

    @GET
    @Path("orders")
    public List<Order> orders(@Context HttpHeaders headers) {
        return app.repository().orders(tenant(headers));
    }

    @GET
    @Path("orders/{id}")
    public Order order(@PathParam("id") String id, @Context HttpHeaders headers) {
        long orderId = ExampleRequests.id(id).orElseThrow(() -> ProblemException.notFound("No order " + id));
        return app.repository().order(tenant(headers), orderId)
                .orElseThrow(() -> ProblemException.notFound("No order " + id));
    }

    @POST
    @Path("payments")
    public Payment createPayment(byte[] body, @Context HttpHeaders headers) {
        return app.createPayment(Optional.empty(), tenant(headers), ExampleRequests.payment(body));
    }

    @GET
    @Path("payments")
    public List<Payment> payments(@Context HttpHeaders headers) {
        return app.repository().payments(tenant(headers));
    }

    /** The demo tenant header; real applications take the tenant from authentication. */
    private static String tenant(HttpHeaders headers) {
        List<String> values = headers.getRequestHeader(Tenants.HEADER);
        return Tenants.of(values == null ? List.of() : values);
    }
}
