/**
 * What the framework adapters share: settings and customizers (for applications), and, for this
 * project's adapters only, the engine's assembly, the exchange lifecycle, schema check, purge, health.
 */
module dev.idempotency.framework {
    requires transitive dev.idempotency.core;
    requires transitive java.sql;
    requires static dev.idempotency.jdbc;
    requires static dev.idempotency.r2dbc;
    requires static jakarta.servlet;
    requires org.slf4j;

    exports dev.idempotency.framework;
    exports dev.idempotency.framework.internal to dev.idempotency.javalin, dev.idempotency.micronaut,
            dev.idempotency.vertx, dev.idempotency.jakartars, dev.idempotency.spring,
            dev.idempotency.spring.webflux, dev.idempotency.quarkus;
    exports dev.idempotency.framework.servlet to dev.idempotency.javalin, dev.idempotency.spring;
}
