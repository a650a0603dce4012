package dev.idempotency.examples;

import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.TenantResolver;
import java.util.List;
import java.util.Map;

/**
 * The examples' tenant: the {@code X-Tenant-Id} header, {@code public} without it. A demo
 * resolver — a real application takes the tenant from authentication (a verified token's claim),
 * never from a header the client picks.
 */
public final class Tenants {

    public static final String HEADER = "X-Tenant-Id";
    public static final String DEFAULT = "public";

    private static final TenantResolver RESOLVER = TenantResolver.header(HEADER, DEFAULT);

    private Tenants() {
    }

    /** The engine's resolver; the same rule as {@link #of}. */
    public static TenantResolver resolver() {
        return RESOLVER;
    }

    /**
     * The tenant named by the request's {@code X-Tenant-Id} values (all field lines, empty when
     * absent), by the same rule the engine applies.
     *
     * @throws ProblemException 400 when the header is repeated, blank or not visible ASCII
     */
    public static String of(List<String> headerValues) {
        RequestView request = RequestView.of("GET", "/", Map.of(HEADER, headerValues), new byte[0]);
        return RESOLVER.resolve(request).orElseThrow(() -> ProblemException.validation(
                "The X-Tenant-Id header must be one value of visible ASCII characters"));
    }
}
