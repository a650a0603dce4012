package dev.idempotency.framework;

import dev.idempotency.core.IdempotencyConfig;

/**
 * Adjusts the engine an integration assembles: each bean of this type the application defines is
 * called once, in the container's order, with the configuration builder after the
 * {@code idempotency.*} settings and the application's resolver, canonicalizer, replay-policy and
 * listener beans are applied, just before the engine is built (so a customizer may override them).
 * An application that defines its own {@code IdempotencyEngine} bean gets no customizer called.
 */
@FunctionalInterface
public interface IdempotencyConfigCustomizer {

    /** Changes {@code config} in place, e.g. {@code config.clock(clock)}. */
    void customize(IdempotencyConfig.Builder config);
}
