package dev.idempotency.examples.micronaut;

import dev.idempotency.examples.Order;
import dev.idempotency.examples.Payment;
import io.micronaut.serde.annotation.SerdeImport;

/** Lets Micronaut Serialization write the shared response records (they carry no annotations). */
@SerdeImport(Order.class)
@SerdeImport(Payment.class)
final class JsonTypes {

    private JsonTypes() {
    }
}
