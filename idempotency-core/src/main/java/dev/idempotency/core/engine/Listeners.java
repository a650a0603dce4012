package dev.idempotency.core.engine;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.StoreCall;
import dev.idempotency.core.internal.WithheldMessage;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The listener that does nothing, and several listeners heard as one. */
public final class Listeners {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    public static final IdempotencyListener NONE = event -> {
    };

    private Listeners() {
    }

    public static IdempotencyListener all(IdempotencyListener... listeners) {
        List<IdempotencyListener> flat = new ArrayList<>();
        for (IdempotencyListener listener : listeners) {
            if (listener instanceof Several several) {
                flat.addAll(several.listeners());
            } else if (listener != NONE) {
                flat.add(listener);
            }
        }
        return switch (flat.size()) {
            case 0 -> NONE;
            case 1 -> flat.get(0);
            default -> new Several(List.copyOf(flat));
        };
    }

    /** Tells one listener; what it throws (short of a failing JVM) is logged, never passed on. */
    static void tell(IdempotencyListener listener, IdempotencyEvent event) {
        safely(() -> listener.onEvent(event), "{}", event.outcome());
    }

    /** Tells one listener of a store call; what it throws (short of a failing JVM) is logged, never passed on. */
    static void tell(IdempotencyListener listener, StoreCall call) {
        safely(() -> listener.onStoreCall(call), "the store call {}", call.operation());
    }

    private static void safely(Runnable telling, String what, Object subject) {
        try {
            telling.run();
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            log.warn("Idempotency listener failed on " + what, subject, WithheldMessage.of(e));
        }
    }

    private record Several(List<IdempotencyListener> listeners) implements IdempotencyListener {
        @Override
        public void onEvent(IdempotencyEvent event) {
            for (IdempotencyListener listener : listeners) {
                tell(listener, event);
            }
        }

        @Override
        public void onStoreCall(StoreCall call) {
            for (IdempotencyListener listener : listeners) {
                tell(listener, call);
            }
        }
    }
}
