/** The Vert.x Web handler. */
module dev.idempotency.vertx {
    requires transitive dev.idempotency.core;
    requires transitive io.vertx.core;
    requires transitive io.vertx.web;
    requires io.vertx.auth.common;
    requires dev.idempotency.framework;
    requires org.slf4j;

    exports dev.idempotency.vertx;
}
