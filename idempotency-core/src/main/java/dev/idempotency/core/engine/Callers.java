package dev.idempotency.core.engine;

import dev.idempotency.core.CallerResolver;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.internal.WithheldMessage;
import dev.idempotency.core.store.RecordKey;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The caller part of each record's key: {@link RecordKey#callerOf} the name the
 * {@link CallerResolver} gives, {@link RecordKey#ANONYMOUS} when it gives none — or always, when
 * records are shared across callers, which is logged as a warning once, when the engine starts. A
 * blank name (an authenticated request with no usable identity) or a failing resolver refuses the
 * request: it is never filed as anonymous.
 */
public final class Callers {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    static final String NO_IDENTITY = "The request is authenticated, but its authentication names no caller to file "
            + "its Idempotency-Key under (an empty name, a token without a subject or client id); configure a "
            + "CallerResolver that names this caller (IdempotencyConfig.Builder#callerResolver, or a CallerResolver "
            + "bean in Spring, Micronaut or Quarkus)";
    static final String RESOLVER_FAILED = "The CallerResolver failed, so the request's caller could not be "
            + "determined; it is not filed as anonymous instead";

    /** Where a request is filed: under a caller, or nowhere (refused, with the problem's detail). */
    sealed interface Filing {
        /** @param caller the record key's caller: {@link RecordKey#callerOf}, or {@link RecordKey#ANONYMOUS} */
        record Under(String caller) implements Filing {
        }

        record Refused(String detail) implements Filing {
        }
    }

    private final CallerResolver resolver;
    private final boolean shared;
    private final AtomicBoolean unidentifiedLogged = new AtomicBoolean();

    public Callers(IdempotencyConfig config) {
        this.resolver = config.callerResolver();
        this.shared = config.shareRecordsAcrossCallers();
        if (shared) {
            log.warn("Idempotency records are shared across callers (shareRecordsAcrossCallers): a caller who sends "
                    + "another caller's key and body gets that caller's response");
        }
    }

    Filing of(RequestView request) {
        if (shared) {
            return new Filing.Under(RecordKey.ANONYMOUS);
        }
        Optional<String> name;
        try {
            name = resolver.resolve(request);
        } catch (RuntimeException e) {
            log.warn("Caller resolver failed; refusing the request", WithheldMessage.of(e));
            return new Filing.Refused(RESOLVER_FAILED);
        }
        if (name.isEmpty()) {
            return new Filing.Under(RecordKey.ANONYMOUS);
        }
        if (name.get().isBlank()) {
            if (unidentifiedLogged.compareAndSet(false, true)) {
                log.warn("Refusing authenticated requests whose authentication names no caller (403 "
                        + "idempotency_caller_unknown); configure a CallerResolver that names them. Logged once.");
            }
            return new Filing.Refused(NO_IDENTITY);
        }
        return new Filing.Under(RecordKey.callerOf(name.get()));
    }
}
