package dev.idempotency.core;

import java.util.Optional;

/**
 * Names the authenticated caller a request comes from, the part of every record's namespace that
 * keeps one caller's key from ever replaying another caller's response. The engine files records
 * under a hash of the name ({@link dev.idempotency.core.store.RecordKey#callerOf}), never the name.
 */
@FunctionalInterface
public interface CallerResolver {

    /**
     * @return the caller's stable name (a user id, a token's subject), or empty for a request
     *         nobody authenticated
     */
    Optional<String> resolve(RequestView request);

    /** The default: the principal the framework authenticated, {@link RequestView#principalName()}. */
    static CallerResolver principal() {
        return RequestView::principalName;
    }
}
