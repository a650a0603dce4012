/**
 * The Spring WebFlux filter and its Spring Boot auto-configuration; the engine's own
 * auto-configuration is idempotency-spring's. Opened for Spring's reflection. Spring's and
 * Reactor's jars have stable Automatic-Module-Names. WebFlux and Reactor are the application's:
 * static here, so a Spring MVC application that has this jar through the starter needs neither.
 */
module dev.idempotency.spring.webflux {
    requires transitive dev.idempotency.core;
    requires dev.idempotency.framework;
    requires dev.idempotency.spring;
    requires static org.reactivestreams;
    requires org.slf4j;
    requires static reactor.core;
    requires static r2dbc.spi;
    requires static spring.r2dbc;
    requires static spring.boot.health;
    requires static spring.tx;
    requires spring.beans;
    requires spring.boot;
    requires spring.boot.autoconfigure;
    requires spring.context;
    requires spring.core;
    requires spring.web;
    requires static spring.webflux;

    exports dev.idempotency.spring.webflux;
    opens dev.idempotency.spring.webflux;
}
