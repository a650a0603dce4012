package dev.idempotency.core.call;

import dev.idempotency.core.ProblemCode;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.store.StorageUnavailableException;
import java.lang.reflect.Type;

/**
 * The engine's answers in a call's terms: a {@link Decision.Respond} read by its problem code (not
 * its HTTP text) as a {@link CallOutcome}, and an outcome as a value or a typed exception.
 */
final class CallAnswers {

    private CallAnswers() {
    }

    /**
     * The outcome of a call the engine answered without running it.
     *
     * @throws IllegalArgumentException when the engine refused the call itself (its key, tenant,
     *                                  caller or input size)
     */
    static <R> CallOutcome<R> outcome(Decision.Respond answer, ResultCodec codec, Type resultType) {
        ProblemCode problem = answer.problem();
        if (answer.isReplay()) {
            return problem == null ? new CallOutcome.Replayed<>(codec.decode(answer.reply().body(), resultType))
                    : new CallOutcome.ResultNotStored<>();
        }
        if (problem == null) {
            throw new IllegalStateException("The engine refused a call without saying why");
        }
        return switch (problem) {
            case IDEMPOTENCY_KEY_CONFLICT -> new CallOutcome.KeyReused<>();
            case IDEMPOTENCY_REQUEST_IN_PROGRESS -> new CallOutcome.InFlight<>();
            case IDEMPOTENCY_STORAGE_UNAVAILABLE -> storageUnavailable(answer.storageFailure());
            case IDEMPOTENCY_KEY_INVALID -> throw new IllegalArgumentException(
                    "A call's key must be 1 to 255 printable ASCII characters, not all spaces");
            case IDEMPOTENCY_TENANT_UNKNOWN -> throw new IllegalArgumentException(
                    "The call's tenant is unknown, or longer than 191 characters");
            case IDEMPOTENCY_CALLER_UNKNOWN -> throw new IllegalArgumentException(
                    "The call's caller could not be determined (a blank caller name?)");
            case IDEMPOTENCY_REQUEST_TOO_LARGE -> throw new IllegalArgumentException(
                    "The call's input encodes to more than maxRequestBodyBytes");
            default -> throw new IllegalStateException("The engine refused a call: " + problem.code());
        };
    }

    static <R> CallOutcome<R> storageUnavailable(Throwable failure) {
        StorageUnavailableException.Reason reason = failure instanceof StorageUnavailableException unavailable
                ? unavailable.reason() : StorageUnavailableException.Reason.UNREACHABLE;
        return new CallOutcome.StorageUnavailable<>(reason, failure);
    }

    /** The outcome's value, or the exception that says why there is none. */
    static <R> R valueOf(CallOutcome<R> outcome, IdempotentCall call) {
        if (outcome instanceof CallOutcome.Executed<R> executed) {
            return executed.value();
        }
        if (outcome instanceof CallOutcome.Replayed<R> replayed) {
            return replayed.value();
        }
        if (outcome instanceof CallOutcome.KeyReused) {
            throw new KeyReusedException(call);
        }
        if (outcome instanceof CallOutcome.InFlight) {
            throw new CallInFlightException(call);
        }
        if (outcome instanceof CallOutcome.ResultNotStored) {
            throw new ResultNotStoredException(call);
        }
        CallOutcome.StorageUnavailable<R> unavailable = (CallOutcome.StorageUnavailable<R>) outcome;
        throw new StorageUnavailableException(unavailable.reason(), unavailable.failure() == null
                ? "The call's transaction could not be committed" : "Idempotency storage unavailable",
                unavailable.failure());
    }
}
