package dev.idempotency.quarkus;

import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.StoreCall;
import io.vertx.core.Context;
import jakarta.inject.Singleton;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the engine's store calls, and those made on a Vert.x event-loop thread, by thread name. */
@Singleton
public class StoreCallThreads implements IdempotencyListener {

    final AtomicInteger calls = new AtomicInteger();
    final Set<String> onEventLoop = ConcurrentHashMap.newKeySet();

    @Override
    public void onEvent(IdempotencyEvent event) {
    }

    @Override
    public void onStoreCall(StoreCall call) {
        calls.incrementAndGet();
        if (Context.isOnEventLoopThread()) {
            onEventLoop.add(Thread.currentThread().getName() + " " + call);
        }
    }
}
