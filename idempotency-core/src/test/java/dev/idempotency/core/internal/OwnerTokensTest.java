package dev.idempotency.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class OwnerTokensTest {

    @Test
    void tokensAreVersion4UuidsAndNeverRepeatAcrossThreads() throws Exception {
        int threads = 8;
        int perThread = 50_000;
        Set<String> seen = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> draws = java.util.stream.IntStream.range(0, threads)
                    .mapToObj(t -> pool.submit(() -> {
                        for (int i = 0; i < perThread; i++) {
                            seen.add(OwnerTokens.next());
                        }
                    }))
                    .<Future<?>>map(f -> f)
                    .toList();
            for (Future<?> draw : draws) {
                draw.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(seen).hasSize(threads * perThread);
        String token = OwnerTokens.next();
        UUID parsed = UUID.fromString(token);
        assertThat(parsed.toString()).isEqualTo(token);
        assertThat(parsed.version()).isEqualTo(4);
        assertThat(parsed.variant()).isEqualTo(2);
    }
}
