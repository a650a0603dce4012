/** The PostgreSQL store on the Vert.x SQL Client. */
module dev.idempotency.vertx.sql {
    requires transitive dev.idempotency.core;
    requires dev.idempotency.sql;
    requires transitive io.vertx.core;
    requires transitive io.vertx.sql.client;
    requires transitive io.vertx.sql.client.pg;
    requires org.slf4j;

    exports dev.idempotency.vertx.sql;
}
