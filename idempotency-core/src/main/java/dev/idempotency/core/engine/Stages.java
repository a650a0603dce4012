package dev.idempotency.core.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/** The two things every flow and execution does with a store's stages. */
public final class Stages {

    private Stages() {
    }

    /** A store call whose synchronous throw counts as a failed stage. */
    public static <T> CompletionStage<T> attempt(Supplier<CompletionStage<T>> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The failure itself, without the wrappers a {@code CompletableFuture} puts around it. */
    public static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
