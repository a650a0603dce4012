/** What the core's packages share and applications must not use. Not exported by the module. */
package dev.idempotency.core.internal;
