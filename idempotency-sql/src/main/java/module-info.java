/** What the SQL stores share: statements per dialect, failure classification, row mapping, DDL. */
module dev.idempotency.sql {
    requires transitive dev.idempotency.core;

    exports dev.idempotency.sql;
}
