package dev.idempotency.vertx.sql;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.sql.SqlReservation;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import java.util.function.UnaryOperator;

/**
 * The atomic mode's reservation ({@link SqlReservation}) on one {@link SqlConnection}: the handler
 * writes through {@link #connection()} (from the engine's execution as
 * {@code execution.unwrap(SqlConnection.class)}, or {@link SqlClient}).
 */
public final class PgAtomicReservation extends SqlReservation {

    private final SqlConnection connection;

    PgAtomicReservation(PgSession session, RecordKey key, String ownerToken, UnaryOperator<Throwable> failures) {
        super(session, key, ownerToken, failures);
        this.connection = session.connection();
    }

    /** The connection whose transaction holds the reservation: the handler's writes go here. */
    public SqlConnection connection() {
        return connection;
    }
}
