/**
 * How the JDBC store runs idempotency-sql's statements per database: binding, the atomic mode's
 * session set-up, failure translation. Internal, not API: not exported, may change without notice.
 */
package dev.idempotency.jdbc.internal;
