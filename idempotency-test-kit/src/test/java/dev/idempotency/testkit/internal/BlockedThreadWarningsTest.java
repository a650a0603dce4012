package dev.idempotency.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.testkit.InterceptingStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The check the conformance run relies on does catch storage on an event loop. */
class BlockedThreadWarningsTest {

    @Test
    void aSlowStoreCallOnTheEventLoopIsCaught() throws Exception {
        InterceptingStore slow = new InterceptingStore(new InMemoryStore(), operation -> {
            try {
                // Long enough that a checker thread starved of CPU still finds the loop asleep in it.
                Thread.sleep(10 * BlockedThreadWarnings.MAX_EVENT_LOOP_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try (BlockedThreadWarnings checker = new BlockedThreadWarnings();
             IdempotencyEngine engine = new IdempotencyEngine(slow, IdempotencyConfig.defaults())) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            // What a broken adapter would do: decide on the event loop.
            checker.vertx().runOnContext(v -> {
                engine.before(RequestView.of("POST", "/orders", Map.of("Idempotency-Key", List.of("k")), new byte[0]));
                done.complete(null);
            });
            done.get(10, TimeUnit.SECONDS);

            // The checker logs from its own thread, which may finish after the loop went on.
            List<BlockedThreadWarnings.Warning> warnings = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (warnings.stream().noneMatch(w -> w.inEngineOrStore() && w.waiting()) && System.nanoTime() < deadline) {
                warnings.addAll(checker.takeWarnings());
                Thread.sleep(20);
            }
            assertThat(warnings).anyMatch(w -> w.inEngineOrStore() && w.waiting());
        }
    }
}
