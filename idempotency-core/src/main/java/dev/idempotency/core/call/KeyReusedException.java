package dev.idempotency.core.call;

/** {@link CallOutcome.KeyReused}: the key was first used with another input. */
public final class KeyReusedException extends IdempotentCallException {

    KeyReusedException(IdempotentCall call) {
        super(call, "The key was already used with another input");
    }
}
