package dev.idempotency.jakartars;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.framework.internal.StorageHealth;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code GET /health}: whether the engine's store answers, as JSON in the shape of Spring Boot's
 * health endpoint.
 *
 * <pre>{@code
 * 200 {"status":"UP","components":{"idempotency":{"status":"UP"}}}
 * 503 {"status":"DOWN","components":{"idempotency":{"status":"DOWN","details":{"reason":"NOT_PROVISIONED"}}}}
 * }</pre>
 *
 * <p>The reason is {@code NOT_PROVISIONED} (no table), {@code UNREACHABLE}, {@code BUSY} or
 * {@code UNEXPECTED}, never an exception's text. The check runs the store's call on the request's
 * thread. Register the class beside the feature, whose engine it checks:
 * {@code resourceConfig.register(idempotency).register(IdempotencyHealthResource.class)}; for another
 * path, a subclass with a {@code @Path} of its own and the same constructor.
 */
@Path("health")
public class IdempotencyHealthResource {

    private final IdempotencyEngine engine;

    /**
     * The engine of the {@link IdempotencyFeature} registered in the same application.
     *
     * @throws IllegalStateException when no feature is registered there
     */
    public IdempotencyHealthResource(@Context Configuration configuration) {
        if (!(configuration.getProperty(IdempotencyFeature.ENGINE) instanceof IdempotencyEngine registered)) {
            throw new IllegalStateException("IdempotencyHealthResource needs an IdempotencyFeature registered in "
                    + "the same application");
        }
        this.engine = registered;
    }

    /** 200 when the store answers, else 503 with the reason. */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response health() {
        return StorageHealth.downReason(engine)
                .map(reason -> Response.status(Response.Status.SERVICE_UNAVAILABLE)
                        .entity(body("DOWN", ",\"details\":{\"" + StorageHealth.REASON + "\":\"" + reason + "\"}"))
                        .build())
                .orElseGet(() -> Response.ok(body("UP", "")).build());
    }

    private static String body(String status, String details) {
        return "{\"status\":\"" + status + "\",\"components\":{\"" + StorageHealth.NAME + "\":{\"status\":\""
                + status + "\"" + details + "}}}";
    }
}
