/**
 * The Jakarta REST adapter. Jersey's server is read only when the runtime is Jersey, for what
 * Jakarta REST has no hook for.
 */
module dev.idempotency.jakartars {
    requires transitive dev.idempotency.core;
    requires transitive jakarta.ws.rs;
    requires static org.glassfish.jersey.core.server;
    requires transitive dev.idempotency.framework;   // PurgeSettings, in the builder's API
    requires org.slf4j;

    exports dev.idempotency.jakartars;
}
