package dev.idempotency.testkit;

import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.Store;

/**
 * The {@link StoreContractTest} for the asynchronous face: the same tests, each call made through
 * an {@link AsyncStore} and waited for. Subclass it for an asynchronous store — and for a blocking
 * one through {@link AsyncStore#of}, which checks that face of it too:
 *
 * <pre>{@code
 * class MyAsyncStoreContractTest extends AsyncStoreContractTest {
 *     protected AsyncStore createAsyncStore() { return new MyAsyncStore(client); }
 *     protected AsyncStore secondAsyncInstance() { return new MyAsyncStore(otherClient); }
 * }
 * }</pre>
 */
public abstract class AsyncStoreContractTest extends StoreContractTest {

    private AsyncStore first;

    /** An asynchronous store over fresh or shared storage; called before each test. */
    protected abstract AsyncStore createAsyncStore();

    /**
     * A second instance over the same storage, as a second application server would have.
     * Defaults to the first instance.
     */
    protected AsyncStore secondAsyncInstance() {
        return first;
    }

    /** Releases what {@link #createAsyncStore()} opened. */
    protected void closeAsyncStore(AsyncStore store) {
    }

    @Override
    protected final Store createStore() {
        first = createAsyncStore();
        return new JoiningStore(first);
    }

    @Override
    protected final Store secondInstance() {
        AsyncStore second = secondAsyncInstance();
        return second == first ? store : new JoiningStore(second);
    }

    @Override
    protected final void closeStore(Store store) {
        closeAsyncStore(first);
    }
}
