/** The R2DBC store: PostgreSQL and MariaDB over the application's {@code ConnectionFactory}. */
module dev.idempotency.r2dbc {
    requires transitive dev.idempotency.core;
    requires transitive r2dbc.spi;
    requires dev.idempotency.sql;
    requires reactor.core;
    requires org.reactivestreams;
    requires org.slf4j;

    exports dev.idempotency.r2dbc;
}
