/** Micrometer meters (micrometer-core has a stable Automatic-Module-Name). */
module dev.idempotency.micrometer {
    requires transitive dev.idempotency.core;
    requires transitive micrometer.core;

    exports dev.idempotency.micrometer;
}
