/** The Javalin plugin. */
module dev.idempotency.javalin {
    requires transitive dev.idempotency.core;
    requires dev.idempotency.framework;
    requires transitive io.javalin;
    requires jakarta.servlet;
    requires org.eclipse.jetty.ee10.servlet;
    requires org.slf4j;

    exports dev.idempotency.javalin;
}
