package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.PurgeScheduler;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Bounded batches, a cap per run, and a schedule that survives failures. */
class PurgeSchedulerTest {

    private static final Instant T0 = Instant.parse("2031-02-01T00:00:00Z");
    private static final StoredResponse RESPONSE = new StoredResponse(200, null, Map.of(), new byte[] {1});

    /** Records the batch sizes asked for. */
    private static final class CountingStore extends ForwardingStore {
        final List<Integer> batches = new ArrayList<>();

        CountingStore(Store delegate) {
            super(delegate);
        }

        @Override
        public int purgeExpired(Instant now, int limit) {
            int purged = super.purgeExpired(now, limit);
            batches.add(purged);
            return purged;
        }
    }

    private static void fill(Store store, int expired, int live) {
        for (int i = 0; i < expired; i++) {
            store.insertCompleted(new RecordKey("t", "POST", "/o", "expired-" + i), "f", RESPONSE, T0, Duration.ofSeconds(1));
        }
        for (int i = 0; i < live; i++) {
            store.insertCompleted(new RecordKey("t", "POST", "/o", "live-" + i), "f", RESPONSE, T0, Duration.ofHours(1));
        }
    }

    @Test
    void aRunDeletesInBatchesUntilOneComesBackShort() {
        try (TestDatabase db = TestDatabase.postgres()) {
            JdbcStore jdbc = JdbcStore.create(db.pool("purge", 2));
            jdbc.createTableIfMissing();
            fill(jdbc, 25, 5);
            CountingStore store = new CountingStore(jdbc);

            int purged = PurgeScheduler.purge(store, T0.plusSeconds(2), 10, 100);

            assertThat(purged).isEqualTo(25);
            assertThat(store.batches).containsExactly(10, 10, 5);
            assertThat(jdbc.purgeExpired(T0.plusSeconds(2), 10)).isZero();
            assertThat(jdbc.find(new RecordKey("t", "POST", "/o", "live-0"), T0.plusSeconds(2))).isPresent();
        }
    }

    @Test
    void aRunStopsAtItsBatchCapAndLeavesTheRestForLater() {
        InMemoryStore memory = new InMemoryStore();
        fill(memory, 30, 0);
        CountingStore store = new CountingStore(memory);

        assertThat(PurgeScheduler.purge(store, T0.plusSeconds(2), 5, 3)).isEqualTo(15);
        assertThat(store.batches).hasSize(3);
        assertThat(memory.size()).isEqualTo(15);
    }

    @Test
    void theScheduleKeepsRunningAfterAFailure() throws InterruptedException {
        CountDownLatch runs = new CountDownLatch(3);
        Store failing = new ForwardingStore(new InMemoryStore()) {
            @Override
            public int purgeExpired(Instant now, int limit) {
                runs.countDown();
                throw new IllegalStateException("database down");
            }
        };
        try (PurgeScheduler scheduler = PurgeScheduler.builder(failing).initialDelay(Duration.ZERO)
                .interval(Duration.ofMillis(20)).start()) {
            assertThat(runs.await(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** Passes every call through. */
    private static class ForwardingStore implements Store {
        private final Store delegate;

        ForwardingStore(Store delegate) {
            this.delegate = delegate;
        }

        @Override
        public dev.idempotency.core.store.ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken,
                                                              Instant now, Duration lease, Duration ttl) {
            return delegate.reserve(key, fingerprint, ownerToken, now, lease, ttl);
        }

        @Override
        public boolean complete(RecordKey key, String ownerToken, StoredResponse response) {
            return delegate.complete(key, ownerToken, response);
        }

        @Override
        public boolean renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
            return delegate.renew(key, ownerToken, now, lease);
        }

        @Override
        public boolean releaseIfOwned(RecordKey key, String ownerToken) {
            return delegate.releaseIfOwned(key, ownerToken);
        }

        @Override
        public Optional<dev.idempotency.core.store.IdempotencyRecord> find(RecordKey key, Instant now) {
            return delegate.find(key, now);
        }

        @Override
        public boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now,
                                       Duration ttl) {
            return delegate.insertCompleted(key, fingerprint, response, now, ttl);
        }

        @Override
        public int purgeExpired(Instant now, int limit) {
            return delegate.purgeExpired(now, limit);
        }
    }
}
