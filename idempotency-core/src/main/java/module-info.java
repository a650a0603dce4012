/**
 * The engine: the user API ({@code dev.idempotency.core}), idempotent calls outside HTTP
 * ({@code dev.idempotency.core.call}), the SPIs of framework adapters
 * ({@code dev.idempotency.core.adapter}) and of stores ({@code dev.idempotency.core.store}). The
 * engine's internals ({@code dev.idempotency.core.engine}), the canonicalizers
 * ({@code dev.idempotency.core.canonical}) and what the packages share
 * ({@code dev.idempotency.core.internal}) are not exported.
 */
module dev.idempotency.core {
    requires com.fasterxml.jackson.core;
    requires org.slf4j;
    requires static com.fasterxml.jackson.databind; // the default codec of the calls only

    exports dev.idempotency.core;
    exports dev.idempotency.core.adapter;
    exports dev.idempotency.core.call;
    exports dev.idempotency.core.store;
}
