package dev.idempotency.quarkus;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;

/**
 * What {@link ShipmentsResource} writes with Hibernate ORM. Its id comes from a sequence, so the
 * INSERT waits for the flush at commit: a duplicate {@code code} fails there, not in the method.
 */
@Entity
public class Shipment {

    @Id
    @GeneratedValue
    public Long id;

    @Column(unique = true, nullable = false)
    public String code;
}
