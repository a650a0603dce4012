package dev.idempotency.framework.internal;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.Mode;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.framework.IdempotencySettings;
import dev.idempotency.framework.InvalidSettingsException;
import dev.idempotency.r2dbc.R2dbcStore;
import java.time.Duration;
import java.util.List;

/**
 * The atomic mode's lease on PostgreSQL through R2DBC. There the store makes the lease the
 * transaction's {@code idle_in_transaction_session_timeout} and renews nothing: a handler that
 * leaves its transaction idle for a whole lease — before its first statement (a cold first
 * request, a remote call), between two, or before the response is stored — has its session ended
 * by PostgreSQL and its request answered 500. The rule: in that mode on that store the lease is at
 * least {@link #MINIMUM} (5 s); a shorter one fails the start naming {@code idempotency.lease}.
 */
public final class AtomicLease {

    /** The shortest lease the atomic mode takes on PostgreSQL through R2DBC. */
    public static final Duration MINIMUM = Duration.ofSeconds(5);

    /** {@code R2dbcStore} is final: a store of this class name is one, and idempotency-r2dbc is there. */
    private static final String R2DBC_STORE = "dev.idempotency.r2dbc.R2dbcStore";

    private AtomicLease() {
    }

    /**
     * Passes unless {@code config} is the atomic mode, {@code store} an {@code R2dbcStore} on
     * PostgreSQL and the lease shorter than {@link #MINIMUM}.
     *
     * @throws InvalidSettingsException naming {@code idempotency.lease}
     */
    public static void check(IdempotencyConfig config, AsyncStore store) {
        if (config.mode() == Mode.ATOMIC && store.getClass().getName().equals(R2DBC_STORE) && Postgres.isPostgres(store)
                && config.lease().compareTo(MINIMUM) < 0) {
            String key = IdempotencySettings.PREFIX + ".lease";
            throw new InvalidSettingsException(List.of(key), "The lease (" + key + ", or an engine's own "
                    + "IdempotencyConfig.lease) is " + config.lease() + ", shorter than " + MINIMUM + ", the least the atomic mode takes on PostgreSQL through R2DBC: there the lease is the "
                    + "transaction's idle_in_transaction_session_timeout, and PostgreSQL ends the session of a handler "
                    + "idle in its transaction that long (before its first statement, between two, or before the "
                    + "response is stored), answering 500. Set " + key + " to at least " + MINIMUM
                    + " (default 30 s), longer than the longest pause of a handler inside its transaction.");
        }
    }

    /** Loaded only for an {@code R2dbcStore}, so only with idempotency-r2dbc on the classpath. */
    private static final class Postgres {
        static boolean isPostgres(AsyncStore store) {
            return store instanceof R2dbcStore r2dbc && r2dbc.dialect() == R2dbcStore.Dialect.POSTGRESQL;
        }
    }
}
