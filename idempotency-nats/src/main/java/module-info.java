/** Idempotent NATS JetStream consumers (jnats has a stable Automatic-Module-Name). */
module dev.idempotency.nats {
    requires transitive dev.idempotency.core;
    requires transitive io.nats.jnats;
    requires org.slf4j;

    exports dev.idempotency.nats;
}
