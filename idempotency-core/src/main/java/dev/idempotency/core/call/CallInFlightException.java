package dev.idempotency.core.call;

/** {@link CallOutcome.InFlight}: a call with this key is still running; try again later. */
public final class CallInFlightException extends IdempotentCallException {

    CallInFlightException(IdempotentCall call) {
        super(call, "A call with this key is still running");
    }
}
