package dev.idempotency.spring.webflux;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.framework.internal.StorageHealth;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The engine's store as a reactive health component ({@link StorageHealth} in Spring Boot's types):
 * over an asynchronous store the check is the store's own stage, no thread waits; over a blocking
 * one it runs on Reactor's bounded elastic scheduler, never on an event loop.
 */
final class IdempotencyReactiveHealthIndicator implements ReactiveHealthIndicator {

    private final Supplier<IdempotencyEngine> engines;

    /** @param engines the engine, asked at each check (it is created after database initialization) */
    IdempotencyReactiveHealthIndicator(Supplier<IdempotencyEngine> engines) {
        this.engines = engines;
    }

    @Override
    public Mono<Health> health() {
        IdempotencyEngine engine = engines.get();
        if (engine.blocksCaller()) {
            return Mono.fromCallable(() -> StorageHealth.downReason(engine).map(IdempotencyReactiveHealthIndicator::down)
                    .orElseGet(() -> Health.up().build())).subscribeOn(Schedulers.boundedElastic());
        }
        return Mono.fromCompletionStage(engine::checkStorageAsync)
                .then(Mono.fromSupplier(() -> Health.up().build()))
                .onErrorResume(failure -> Mono.just(down(StorageHealth.reason(unwrap(failure)))));
    }

    private static Health down(String reason) {
        return Health.down().withDetail(StorageHealth.REASON, reason).build();
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
