package dev.idempotency.examples.quarkus;

import dev.idempotency.examples.ExampleContractTest;
import dev.idempotency.examples.ExampleSettings;
import dev.idempotency.examples.ExampleStorage;
import java.util.OptionalInt;

/**
 * The examples' HTTP contract against the Quarkus service, each service the built application in a
 * child process ({@link QuarkusProcess}). Subclassed per storage.
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
