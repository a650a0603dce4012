package dev.idempotency.framework.internal;

import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.framework.MissingTableException;

/** The SQL stores' schema checks: a missing table's message also names the setting that creates it. */
final class MissingTable {

    private MissingTable() {
    }

    /**
     * {@code failure} as a {@link MissingTableException} that adds {@code <prefix>.initialize-schema=always}
     * when it is the store's missing-table failure (its cause {@code NOT_PROVISIONED}); any other
     * failure as it is.
     */
    static RuntimeException withHint(RuntimeException failure, String prefix) {
        if (failure instanceof IllegalStateException && failure.getCause() instanceof StorageUnavailableException missing
                && missing.reason() == StorageUnavailableException.Reason.NOT_PROVISIONED) {
            return new MissingTableException(failure.getMessage() + ", or set " + prefix
                    + ".initialize-schema=always to create it at start", failure);
        }
        return failure;
    }
}
