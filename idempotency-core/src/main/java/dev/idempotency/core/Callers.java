package dev.idempotency.core;

import dev.idempotency.core.internal.WithheldMessage;
import dev.idempotency.core.store.RecordKey;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The caller part of each record's key: {@link RecordKey#callerOf} the name the
 * {@link CallerResolver} gives, {@link RecordKey#ANONYMOUS} when it gives none — or always, when
 * records are shared across callers, which is logged as a warning once, when the engine starts.
 */
final class Callers {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    private final CallerResolver resolver;
    private final boolean shared;

    Callers(IdempotencyConfig config) {
        this.resolver = config.callerResolver();
        this.shared = config.shareRecordsAcrossCallers();
        if (shared) {
            log.warn("Idempotency records are shared across callers (shareRecordsAcrossCallers): a caller who sends "
                    + "another caller's key and body gets that caller's response");
        }
    }

    /** The record key's caller; empty when the resolver failed, so the request is refused. */
    Optional<String> of(RequestView request) {
        if (shared) {
            return Optional.of(RecordKey.ANONYMOUS);
        }
        try {
            return Optional.of(resolver.resolve(request).map(RecordKey::callerOf).orElse(RecordKey.ANONYMOUS));
        } catch (RuntimeException e) {
            log.warn("Caller resolver failed; refusing the request", WithheldMessage.of(e));
            return Optional.empty();
        }
    }
}
