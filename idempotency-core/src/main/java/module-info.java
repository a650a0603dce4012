/**
 * The engine and its store SPI. The canonicalizers ({@code dev.idempotency.core.canonical}) and
 * what the core's packages share ({@code dev.idempotency.core.internal}) are not exported.
 */
module dev.idempotency.core {
    requires com.fasterxml.jackson.core;
    requires org.slf4j;

    exports dev.idempotency.core;
    exports dev.idempotency.core.store;
}
