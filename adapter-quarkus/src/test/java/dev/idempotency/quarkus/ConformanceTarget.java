package dev.idempotency.quarkus;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.jakartars.IdempotencyFeature;
import dev.idempotency.testkit.ConformanceApp;

/**
 * What the running application serves the conformance suite with, swapped at each of the suite's
 * server starts: the suite's {@link ConformanceApp}, and a feature over the suite's engine. (The
 * suite starts a server per test with an engine of its own; Quarkus starts one application for all.)
 */
final class ConformanceTarget {

    private static volatile ConformanceApp app;
    private static volatile IdempotencyFeature feature;

    private ConformanceTarget() {
    }

    static void use(IdempotencyEngine engine, ConformanceApp conformanceApp) {
        feature = IdempotencyFeature.of(engine);
        app = conformanceApp;
    }

    static ConformanceApp app() {
        return app;
    }

    static IdempotencyFeature feature() {
        return feature;
    }
}
