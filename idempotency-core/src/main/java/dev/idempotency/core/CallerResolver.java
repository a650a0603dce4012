package dev.idempotency.core;

import dev.idempotency.core.adapter.RequestView;
import java.util.Optional;

/**
 * Names the authenticated caller a request comes from, the part of every record's namespace that
 * keeps one caller's key from ever replaying another caller's response. The engine files records
 * under a hash of the name ({@link dev.idempotency.core.store.RecordKey#callerOf}), never the name.
 * Three answers: a name; empty, for a request nobody authenticated (the tenant's anonymous caller);
 * or a blank name, for an authenticated request with no usable identity, which the engine refuses
 * ({@code 403 idempotency_caller_unknown}) rather than file it as anonymous. A resolver that throws
 * is refused the same way.
 */
@FunctionalInterface
public interface CallerResolver {

    /**
     * @return the caller's stable name (a user id; for tokens, one that includes the issuer), empty
     *         for a request nobody authenticated, or a blank name ({@code ""}) for an authenticated
     *         request that names no caller
     */
    Optional<String> resolve(RequestView request);

    /** The default: the principal the framework authenticated, {@link RequestView#principalName()}. */
    static CallerResolver principal() {
        return RequestView::principalName;
    }
}
