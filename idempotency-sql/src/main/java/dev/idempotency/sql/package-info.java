/**
 * What the SQL stores (idempotency-jdbc, idempotency-vertx-sql, idempotency-r2dbc) share, without a
 * driver: the statements per dialect as SQL text with named parameters ({@link SqlCatalog}), their
 * rendering to a client's placeholders ({@link Placeholders}), the failure classification
 * ({@link SqlErrors}, {@link SqlOutages}), row mapping ({@link Records}) and the DDL ({@link Ddl}, under
 * {@code db/idempotency/}). Internal to the stores, not API: may change without notice.
 */
package dev.idempotency.sql;
