/**
 * What the framework adapters share: settings, engine assembly, schema check, purge, health, the
 * exchange lifecycle.
 */
module dev.idempotency.framework {
    requires transitive dev.idempotency.core;
    requires transitive java.sql;
    requires static dev.idempotency.jdbc;
    requires static jakarta.servlet;
    requires org.slf4j;

    exports dev.idempotency.framework;
    exports dev.idempotency.framework.servlet;
}
