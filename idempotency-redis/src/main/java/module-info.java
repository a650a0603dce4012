/** The Redis store (Lettuce; lettuce-core has a stable Automatic-Module-Name). */
module dev.idempotency.redis {
    requires transitive dev.idempotency.core;
    requires transitive lettuce.core;
    requires org.slf4j;

    exports dev.idempotency.redis;
}
