package dev.idempotency.core;

import dev.idempotency.core.engine.IdempotencyKeys;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.store.RecordKey;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Names the tenant a request belongs to, the first part of every record's namespace. Real
 * applications take it from authentication (a verified token's claim), not from a header the
 * client chooses; {@link #header} exists for demos and trusted internal traffic.
 */
@FunctionalInterface
public interface TenantResolver {

    /**
     * @return the tenant, or empty when the request's tenant is unknown (the engine answers 400
     *         {@code idempotency_tenant_unknown} and runs nothing, as it does for a tenant longer
     *         than {@value RecordKey#MAX_TENANT_LENGTH} characters)
     */
    Optional<String> resolve(RequestView request);

    /** Every request belongs to one tenant. */
    static TenantResolver fixed(String tenant) {
        Objects.requireNonNull(tenant, "tenant");
        Optional<String> result = Optional.of(tenant);
        return request -> result;
    }

    /**
     * The tenant named by a request header, {@code fallback} when the header is absent; a
     * repeated header, or a value that is blank, longer than {@value RecordKey#MAX_TENANT_LENGTH}
     * characters or not visible ASCII,
     * is unknown.
     */
    static TenantResolver header(String headerName, String fallback) {
        Objects.requireNonNull(headerName, "headerName");
        return request -> {
            List<String> values = request.headers(headerName);
            if (values.isEmpty()) {
                return Optional.ofNullable(fallback);
            }
            if (values.size() > 1) {
                return Optional.empty();
            }
            String value = values.get(0).trim();
            return IdempotencyKeys.isVisibleAscii(value, RecordKey.MAX_TENANT_LENGTH) ? Optional.of(value) : Optional.empty();
        };
    }
}
