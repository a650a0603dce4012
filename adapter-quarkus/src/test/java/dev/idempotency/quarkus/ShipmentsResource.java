package dev.idempotency.quarkus;

import io.agroal.api.AgroalDataSource;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link QuarkusAtomicTest}'s resource: a {@code @Transactional} method writing a {@link Shipment}
 * with Hibernate ORM and an audit line with JDBC on the application's data source, then waiting
 * {@code delayMs}; and one answering with a {@code CompletionStage}.
 */
@Path("/app/shipments")
public class ShipmentsResource {

    static final AtomicInteger RUNS = new AtomicInteger();
    static final AtomicInteger LATER = new AtomicInteger();
    /** The next run fails after its writes, with {@link Refused} (answered 422 by its mapper). */
    static final AtomicBoolean FAIL_NEXT = new AtomicBoolean();
    /** The next run fails after its writes with an exception no mapper answers. */
    static final AtomicBoolean BREAK_NEXT = new AtomicBoolean();

    @Inject
    EntityManager entities;

    @Inject
    AgroalDataSource dataSource;

    @POST
    @Transactional
    public Response ship(@QueryParam("code") String code, @QueryParam("delayMs") long delayMs)
            throws SQLException, InterruptedException {
        int run = RUNS.incrementAndGet();
        Shipment shipment = new Shipment();
        shipment.code = code;
        entities.persist(shipment);
        try (Connection c = dataSource.getConnection();
             PreparedStatement audit = c.prepareStatement("INSERT INTO shipment_audit (code) VALUES (?)")) {
            audit.setString(1, code);
            audit.executeUpdate();
        }
        Thread.sleep(delayMs);
        if (FAIL_NEXT.compareAndSet(true, false)) {
            throw new Refused();
        }
        if (BREAK_NEXT.compareAndSet(true, false)) {
            throw new IllegalStateException("broken after writing");
        }
        return Response.status(201).entity("{\"code\":\"" + code + "\",\"run\":" + run + "}").build();
    }

    @POST
    @Path("later")
    public CompletionStage<String> later() {
        return CompletableFuture.supplyAsync(() -> "{\"run\":" + LATER.incrementAndGet() + "}");
    }

    /** The application's own refusal, after its writes. */
    public static final class Refused extends RuntimeException {
        Refused() {
            super("refused after writing");
        }
    }

    @Provider
    public static final class RefusedMapper implements ExceptionMapper<Refused> {
        @Override
        public Response toResponse(Refused exception) {
            return Response.status(422).entity("{\"refused\":true}").build();
        }
    }
}
