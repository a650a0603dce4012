/**
 * The store contract and race suites and the HTTP conformance suite. The helpers the project's own
 * tests share ({@code dev.idempotency.testkit.internal}: raw HTTP, a TCP proxy, Vert.x thread
 * checks) are not exported.
 */
module dev.idempotency.testkit {
    requires transitive dev.idempotency.core;
    requires transitive org.junit.jupiter.api;
    requires transitive org.assertj.core;
    requires com.fasterxml.jackson.databind;
    requires java.net.http;
    requires java.sql;
    requires org.slf4j;
    requires static ch.qos.logback.classic;
    requires static ch.qos.logback.core;
    requires static io.vertx.core;

    exports dev.idempotency.testkit;
}
