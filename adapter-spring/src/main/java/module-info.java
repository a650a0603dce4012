/**
 * The Spring MVC filter and its Spring Boot auto-configuration. Opened for Spring's reflection
 * (configuration classes, property binding). Spring's jars have stable Automatic-Module-Names.
 */
module dev.idempotency.spring {
    requires transitive dev.idempotency.core;
    requires transitive dev.idempotency.framework;
    requires static jakarta.servlet;
    requires java.sql;
    requires org.slf4j;
    requires spring.aop;
    requires spring.beans;
    requires spring.boot;
    requires spring.boot.autoconfigure;
    requires spring.context;
    requires spring.core;
    requires spring.expression;
    requires spring.web;
    requires static dev.idempotency.jdbc;
    requires static dev.idempotency.micrometer;
    requires static dev.idempotency.r2dbc;
    requires static r2dbc.spi;
    requires static micrometer.core;
    requires static org.jooq;
    requires static spring.boot.health;
    requires static spring.boot.jdbc;
    requires static spring.boot.sql;
    requires static spring.jdbc;
    requires static spring.security.core;
    requires static spring.security.oauth2.resource.server;
    requires static spring.tx;
    requires static tools.jackson.core;
    requires static tools.jackson.databind;

    exports dev.idempotency.spring;
    exports dev.idempotency.spring.internal to dev.idempotency.spring.webflux;
    opens dev.idempotency.spring;
}
