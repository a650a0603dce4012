/**
 * Helpers this project's own tests share: raw HTTP, a TCP proxy that cuts connections, a throwaway
 * PostgreSQL schema, Vert.x blocked-thread checks. Not exported by the module: not part of the
 * test kit's API.
 */
package dev.idempotency.testkit.internal;
