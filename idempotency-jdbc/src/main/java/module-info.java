/** The jOOQ store. */
module dev.idempotency.jdbc {
    requires transitive dev.idempotency.core;
    requires transitive java.sql;
    requires transitive org.jooq;
    requires dev.idempotency.sql;
    requires org.slf4j;
    requires static jakarta.transaction;

    exports dev.idempotency.jdbc;
}
