package dev.idempotency.amqp;

import com.rabbitmq.client.Delivery;
import dev.idempotency.core.call.CallContext;

/**
 * The application's handling of a delivery, run at most once per key while its record lives (see the
 * mode's guarantees). It must not acknowledge the delivery: {@link IdempotentDeliveries} does. What
 * it throws releases the key and leaves the delivery unacknowledged.
 */
@FunctionalInterface
public interface DeliveryHandler {

    /**
     * @param context the call's context: in the atomic mode of the JDBC store,
     *                {@code context.unwrap(java.sql.Connection.class)} is the transaction that commits
     *                with the record
     */
    void handle(Delivery delivery, CallContext context) throws Exception;
}
