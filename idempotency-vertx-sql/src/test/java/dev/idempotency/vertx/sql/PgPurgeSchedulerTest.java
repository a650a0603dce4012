package dev.idempotency.vertx.sql;

import static dev.idempotency.vertx.sql.PgTestDatabase.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.PurgeScheduler;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link PurgeScheduler} over the asynchronous PgStore: exact counts, and two instances never purging a row twice. */
class PgPurgeSchedulerTest {

    private static final Instant T0 = Instant.parse("2031-02-01T00:00:00Z");
    private static final Clock LATER = Clock.fixed(T0.plusSeconds(2), ZoneOffset.UTC);
    private static final StoredResponse RESPONSE = new StoredResponse(200, null, Map.of(), new byte[] {1});

    private PgTestDatabase db;
    private PgStore store;

    @BeforeEach
    void createTable() {
        db = new PgTestDatabase();
        store = PgStore.create(db.pool("purge-a", 4));
        await(store.createTableIfMissing());
    }

    @AfterEach
    void dropSchema() {
        db.close();
    }

    /** Inserts {@code expired} records that expired at T0 + 1 s and {@code live} ones, 50 at a time. */
    private void fill(int expired, int live) {
        List<CompletableFuture<Boolean>> inserts = new ArrayList<>();
        for (int i = 0; i < expired + live; i++) {
            Duration ttl = i < expired ? Duration.ofSeconds(1) : Duration.ofHours(1);
            CompletionStage<Boolean> insert = store.insertCompleted(new RecordKey("t", "POST", "/o", "k-" + i), "f",
                    RESPONSE, T0, ttl);
            inserts.add(insert.toCompletableFuture());
            if (inserts.size() == 50 || i == expired + live - 1) {
                assertThat(inserts.stream().filter(CompletableFuture::join).count()).isEqualTo(inserts.size());
                inserts.clear();
            }
        }
    }

    private long rows() {
        return db.execute("SELECT count(*) FROM idempotency_keys").iterator().next().getLong(0);
    }

    @Test
    void runsDeleteInBatchesUpToTheirCapAndLeaveTheLiveRecords() {
        fill(25, 5);
        try (PurgeScheduler purge = PurgeScheduler.builder(store).clock(LATER).batchSize(10).maxBatchesPerRun(2)
                .initialDelay(Duration.ofHours(1)).start()) {
            assertThat(purge.runOnce()).isEqualTo(20);
            assertThat(rows()).isEqualTo(10);
            assertThat(purge.runOnce()).isEqualTo(5);
            assertThat(purge.runOnce()).isZero();
        }
        assertThat(rows()).isEqualTo(5);
    }

    @Test
    void twoInstancesPurgingAtOnceDeleteEachExpiredRecordOnce() throws Exception {
        fill(2_000, 50);
        PgStore other = PgStore.create(db.pool("purge-b", 4));
        CyclicBarrier start = new CyclicBarrier(2);
        List<CompletableFuture<Integer>> runs = new ArrayList<>();
        for (PgStore instance : List.of(store, other)) {
            PurgeScheduler purge = PurgeScheduler.builder(instance).clock(LATER).batchSize(25)
                    .maxBatchesPerRun(1_000).initialDelay(Duration.ofHours(1)).start();
            runs.add(CompletableFuture.supplyAsync(() -> {
                try (purge) {
                    start.await();
                    return purge.runOnce();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        int first = runs.get(0).get();
        int second = runs.get(1).get();

        assertThat(first + second).isEqualTo(2_000);
        assertThat(rows()).isEqualTo(50);
    }
}
