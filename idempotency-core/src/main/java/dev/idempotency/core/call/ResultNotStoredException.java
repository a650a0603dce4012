package dev.idempotency.core.call;

/** {@link CallOutcome.ResultNotStored}: the call already ran, but its result was too large to store. */
public final class ResultNotStoredException extends IdempotentCallException {

    ResultNotStoredException(IdempotentCall call) {
        super(call, "The call already ran, but its result was too large to store");
    }
}
