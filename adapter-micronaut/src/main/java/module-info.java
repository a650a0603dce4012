/**
 * The Micronaut filter and its beans. Micronaut's jars have stable Automatic-Module-Names; the
 * package is opened for Micronaut's bean introspection.
 */
module dev.idempotency.micronaut {
    requires transitive dev.idempotency.core;
    requires transitive dev.idempotency.framework;
    requires io.micronaut.micronaut_aop;
    requires io.micronaut.micronaut_context;
    requires io.micronaut.micronaut_core;
    requires io.micronaut.micronaut_core_reactive;
    requires io.micronaut.micronaut_discovery_core;
    requires io.micronaut.micronaut_http;
    requires io.micronaut.micronaut_http_server;
    requires io.micronaut.micronaut_inject;
    requires io.micronaut.micronaut_management;
    requires io.micronaut.micronaut_router;
    requires jakarta.inject;
    requires java.sql;
    requires org.reactivestreams;
    requires org.slf4j;
    requires static dev.idempotency.jdbc;
    requires static dev.idempotency.micrometer;
    requires static micrometer.core;
    requires static org.jooq;
    requires static io.micronaut.security.micronaut_security;
    requires static io.micronaut.micronaut_json_core;

    exports dev.idempotency.micronaut;
    opens dev.idempotency.micronaut;
}
