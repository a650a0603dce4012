package dev.idempotency.core.call;

/**
 * A call whose action did not run because of its key: {@link IdempotentCalls#call} throws it where
 * {@link IdempotentCalls#run} answers a {@link CallOutcome}. The message shows the key only as a preview.
 */
public abstract sealed class IdempotentCallException extends RuntimeException
        permits KeyReusedException, CallInFlightException, ResultNotStoredException {

    private final String scope;

    IdempotentCallException(IdempotentCall call, String message) {
        super(message + " (scope " + call.scope() + ", key " + dev.idempotency.core.store.RecordKey.preview(call.key())
                + ")");
        this.scope = call.scope();
    }

    /** The scope of the call. */
    public String scope() {
        return scope;
    }
}
