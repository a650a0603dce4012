package dev.idempotency.examples.quarkus;

import dev.idempotency.examples.ExampleContractTest;
import dev.idempotency.examples.ExampleSettings;
import dev.idempotency.examples.ExampleStorage;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The examples' HTTP contract against the Quarkus service, each service the built application in a
 * child process ({@link QuarkusProcess}); the atomic mode is refused. Subclassed per storage.
 */
abstract class QuarkusExampleContract extends ExampleContractTest {

    private final ExampleStorage storage;

    /** @param storage where the service keeps its records (an extension the subclass registers) */
    QuarkusExampleContract(ExampleStorage storage) {
        this.storage = storage;
    }

    @Override
    protected ExampleStorage storage() {
        return storage;
    }

    @Override
    protected Optional<String> atomicModeRefusal() {
        return Optional.of("IDEMPOTENCY_MODE=atomic is not available in the Quarkus example");
    }

    /**
     * Quarkus REST matches {@code /orders#x} to no resource and answers 404 itself: the filters,
     * bound to resource methods, never see it.
     */
    @Override
    protected OptionalInt serverRefusesFragmentsWith() {
        return OptionalInt.of(404);
    }

    @Override
    protected RunningExample start(ExampleSettings settings) throws Exception {
        return QuarkusProcess.start(settings);
    }
}
