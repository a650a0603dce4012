/**
 * What the framework adapters share: settings, engine assembly, schema check, purge, health. For
 * this project's adapters only (Quarkus's runs on the class path).
 */
module dev.idempotency.framework {
    requires transitive dev.idempotency.core;
    requires transitive java.sql;
    requires static dev.idempotency.jdbc;
    requires static jakarta.servlet;
    requires org.slf4j;

    exports dev.idempotency.framework to dev.idempotency.javalin, dev.idempotency.micronaut, dev.idempotency.spring;
    exports dev.idempotency.framework.servlet to dev.idempotency.javalin, dev.idempotency.spring;
}
