package dev.idempotency.core.call;

import java.util.concurrent.CompletionStage;

/**
 * The work of an idempotent call, as a stage; see {@link CallAction}. It is started on the thread that
 * completes the engine's decision — an {@link dev.idempotency.core.store.AsyncStore}'s own thread, such
 * as an event loop, or the calling thread when the decision was made before it asked — so it must not
 * block; a stage that fails, or an exception thrown, fails the execution and reaches the caller
 * unchanged.
 *
 * @param <R> its result
 */
@FunctionalInterface
public interface AsyncCallAction<R> {

    CompletionStage<R> run(CallContext context);
}
