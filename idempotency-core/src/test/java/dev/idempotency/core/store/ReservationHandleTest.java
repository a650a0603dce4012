package dev.idempotency.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A handle is finished once by an answer; a complete that failed had none and may be asked again
 * (and the handle renewed meanwhile). Both faces.
 */
class ReservationHandleTest {

    private static final RecordKey KEY = new RecordKey("t", "POST", "/orders", "k");
    private static final StoredResponse RESPONSE = new StoredResponse(201, "application/json", Map.of(), new byte[0]);
    private static final Instant NOW = Instant.parse("2031-01-01T00:00:00Z");

    /** Fails its first {@code failures} completes, then answers {@code true}. */
    private static final class Blocking extends AbstractReservation {
        private final AtomicInteger failures;
        final AtomicInteger stores = new AtomicInteger();

        Blocking(int failures) {
            super(KEY, "token");
            this.failures = new AtomicInteger(failures);
        }

        @Override
        protected boolean doComplete(StoredResponse response) {
            if (failures.getAndDecrement() > 0) {
                throw new StorageUnavailableException(StorageUnavailableException.Reason.UNREACHABLE, "cut", null);
            }
            stores.incrementAndGet();
            return true;
        }

        @Override
        protected boolean doRelease() {
            return true;
        }

        @Override
        protected boolean doRenew(Instant now, Duration lease) {
            return true;
        }
    }

    /** The asynchronous face over a {@link Blocking} handle's store calls. */
    private static final class Async extends AbstractAsyncReservation {
        final Blocking store;

        Async(int failures) {
            super(KEY, "token");
            this.store = new Blocking(failures);
        }

        /** The blocking handle's answer as a stage; its exception as a failed one. */
        @Override
        protected CompletionStage<Boolean> doComplete(StoredResponse response) {
            try {
                return CompletableFuture.completedFuture(store.doComplete(response));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        /** Never called by these tests. */
        @Override
        protected CompletionStage<Boolean> doRelease() {
            throw new UnsupportedOperationException();
        }

        @Override
        protected CompletionStage<Boolean> doRenew(Instant now, Duration lease) {
            return CompletableFuture.completedFuture(store.doRenew(now, lease));
        }
    }

    @Test
    void aFailedCompleteLeavesTheBlockingHandleOpenAndAnAnswerFinishesIt() {
        Blocking handle = new Blocking(1);

        assertThatThrownBy(() -> handle.complete(RESPONSE)).isInstanceOf(StorageUnavailableException.class);
        assertThat(handle.renew(NOW, Duration.ofSeconds(1))).as("still renewable").isTrue();
        assertThat(handle.complete(RESPONSE)).isTrue();

        assertThat(handle.stores).hasValue(1);
        assertThat(handle.renew(NOW, Duration.ofSeconds(1))).as("finished: not renewed").isFalse();
        assertThatThrownBy(() -> handle.complete(RESPONSE)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(handle::release).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aFailedCompleteLeavesTheAsyncHandleOpenAndAnAnswerFinishesIt() {
        Async handle = new Async(2);

        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> handle.complete(RESPONSE).toCompletableFuture().join())
                    .isInstanceOf(CompletionException.class).hasCauseInstanceOf(StorageUnavailableException.class);
            assertThat(handle.renew(NOW, Duration.ofSeconds(1)).toCompletableFuture().join()).isTrue();
        }
        assertThat(handle.complete(RESPONSE).toCompletableFuture().join()).isTrue();

        assertThat(handle.store.stores).hasValue(1);
        assertThat(handle.renew(NOW, Duration.ofSeconds(1)).toCompletableFuture().join()).isFalse();
        assertThatThrownBy(() -> handle.complete(RESPONSE).toCompletableFuture().join())
                .hasCauseInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> handle.release().toCompletableFuture().join())
                .hasCauseInstanceOf(IllegalStateException.class);
    }
}
