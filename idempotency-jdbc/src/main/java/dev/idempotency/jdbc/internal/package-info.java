/**
 * The SQL shared by the stores on the idempotency table: statements, DDL, failure classification.
 * Internal, not API: exported only to {@code dev.idempotency.vertx.sql} and
 * {@code dev.idempotency.r2dbc}, may change without notice.
 */
package dev.idempotency.jdbc.internal;
