package dev.idempotency.examples.quarkus;

import dev.idempotency.examples.ExampleApp;
import dev.idempotency.examples.ExampleRequests;
import dev.idempotency.examples.NewOrder;
import dev.idempotency.examples.NewPayment;
import dev.idempotency.examples.Order;
import dev.idempotency.examples.Payment;
import dev.idempotency.examples.ProblemException;
import dev.idempotency.examples.Tenants;
import io.quarkus.narayana.jta.QuarkusTransaction;
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
 * {@link ProblemMapper}. In the atomic mode's transaction the writes go through {@link JoinedWrites}.
 */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public class ShopResource {

    private final ExampleApp app;
    private final JoinedWrites joined;

    ShopResource(ExampleApp app, JoinedWrites joined) {
        this.app = app;
        this.joined = joined;
    }

    @POST
    @Path("orders")
    public Response createOrder(byte[] body, @QueryParam("delayMs") String delayMs, @Context HttpHeaders headers) {
        NewOrder order = ExampleRequests.order(body);
        Order created = atomic()
                ? joined.createOrder(tenant(headers), order, delayMs)
                : app.createOrder(Optional.empty(), tenant(headers), order, delayMs);
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
        NewPayment payment = ExampleRequests.payment(body);
        return atomic()
                ? joined.createPayment(tenant(headers), payment)
                : app.createPayment(Optional.empty(), tenant(headers), payment);
    }

    @GET
    @Path("payments")
    public List<Payment> payments(@Context HttpHeaders headers) {
        return app.repository().payments(tenant(headers));
    }

    /**
     * Whether this request runs in the atomic mode's transaction (a keyed request in that mode, whose
     * JTA transaction the JDBC store began on this thread): then its writes go through
     * {@link JoinedWrites}, which joins it, so that they commit with the stored response.
     */
    private static boolean atomic() {
        return QuarkusTransaction.isActive();
    }

    /** The demo tenant header; real applications take the tenant from authentication. */
    private static String tenant(HttpHeaders headers) {
        List<String> values = headers.getRequestHeader(Tenants.HEADER);
        return Tenants.of(values == null ? List.of() : values);
    }
}
