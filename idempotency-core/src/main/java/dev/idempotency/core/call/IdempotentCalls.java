package dev.idempotency.core.call;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.TenantResolver;
import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.Store;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Idempotent calls outside HTTP: {@link #run} executes an action once per (scope, key) and answers a
 * repeat with the first execution's result, decoded by the {@link ResultCodec}; a repeat with another
 * input, a duplicate in flight and a storage outage are {@link CallOutcome}s ({@link #call}: typed
 * exceptions). The configured mode, store, ttl, lease, in-flight wait, tenant and caller resolvers
 * apply as they do to HTTP requests: a call is decided by an {@link IdempotencyEngine} of its own, the
 * same state machine, over a request made of the call (see {@link #METHOD}). Every result is stored —
 * the configured replay policy, which judges HTTP responses, does not apply.
 *
 * <p>Thread-safe; {@link #close()} it on shutdown (its engine owns a timer thread).
 */
public final class IdempotentCalls implements AutoCloseable {

    /**
     * The method a call's record is filed under, with the path {@code /<scope>}: no HTTP request is
     * (the HTTP engine covers only the methods configured, and no HTTP method is named so), so a
     * store can hold both without a call and a request ever meeting.
     */
    public static final String METHOD = "CALL";

    private static final Map<String, List<String>> JSON_HEADERS = Map.of("Content-Type", List.of(CallRequest.JSON));

    private final IdempotencyEngine engine;
    private final ResultCodec codec;
    private final String keyHeader;

    /** Calls over a blocking store, results as JSON ({@link ResultCodec#json()}). */
    public IdempotentCalls(Store store, IdempotencyConfig config) {
        this(store, config, ResultCodec.json());
    }

    /**
     * Calls over a blocking store: {@link #runAsync} then runs the store calls on the calling thread.
     *
     * @throws IllegalArgumentException when the mode needs what the store cannot do (as the engine)
     */
    public IdempotentCalls(Store store, IdempotencyConfig config, ResultCodec codec) {
        this(new IdempotencyEngine(store, forCalls(config)), codec);
    }

    /** Calls over a non-blocking store, results as JSON ({@link ResultCodec#json()}). */
    public IdempotentCalls(AsyncStore store, IdempotencyConfig config) {
        this(store, config, ResultCodec.json());
    }

    /**
     * Calls over a non-blocking store: {@link #runAsync} never blocks the calling thread.
     *
     * @throws IllegalArgumentException when the mode needs what the store cannot do (as the engine)
     */
    public IdempotentCalls(AsyncStore store, IdempotencyConfig config, ResultCodec codec) {
        this(new IdempotencyEngine(store, forCalls(config)), codec);
    }

    private IdempotentCalls(IdempotencyEngine engine, ResultCodec codec) {
        this.engine = engine;
        this.codec = Objects.requireNonNull(codec, "codec");
        this.keyHeader = engine.config().headerName();
    }

    /**
     * {@code config} for calls: their method covered, every result stored, and a call's own tenant
     * before the configured resolver.
     */
    private static IdempotencyConfig forCalls(IdempotencyConfig config) {
        TenantResolver configured = config.tenantResolver();
        TenantResolver named = request -> {
            Optional<String> tenant = request.unwrap(IdempotentCall.class).flatMap(IdempotentCall::tenant);
            return tenant.isPresent() ? tenant : configured.resolve(request);
        };
        return config.toBuilder().methods(METHOD).replayPolicy(response -> true).tenantResolver(named).build();
    }

    /**
     * Runs {@code action} unless a call with this key ran or runs: blocking, on the calling thread.
     * What the action throws fails the execution (the key is released) and is rethrown unchanged; so
     * is a result the codec cannot encode.
     *
     * @param resultType what the stored result is decoded as, on a repeat
     * @throws IllegalArgumentException when the engine refuses the call itself (its key, tenant,
     *                                  caller, or an input over {@code maxRequestBodyBytes})
     */
    public <R, X extends Exception> CallOutcome<R> run(IdempotentCall call, Class<R> resultType,
                                                      CallAction<R, X> action) throws X {
        return run(call, (Type) resultType, action);
    }

    /**
     * {@link #run}, the stored result decoded as a generic type, such as a method's
     * {@link java.lang.reflect.Method#getGenericReturnType() generic return type} ({@code List<Receipt>}).
     * The caller answers for {@code R} being that type.
     */
    public <R, X extends Exception> CallOutcome<R> run(IdempotentCall call, Type resultType, CallAction<R, X> action)
            throws X {
        Objects.requireNonNull(resultType, "resultType");
        Objects.requireNonNull(action, "action");
        Decision decision = engine.before(request(call));
        if (decision instanceof Decision.Respond answer) {
            return CallAnswers.outcome(answer, codec, resultType);
        }
        Execution execution = proceeding(decision).execution();
        R value;
        byte[] result;
        try {
            value = action.run(contextOf(execution));
            result = codec.encode(value);
        } catch (Throwable failure) {
            execution.fail(failure);
            throw failure;
        }
        return executed(value, execution.finish(CapturedResponse.of(200, JSON_HEADERS, result)));
    }

    /** {@link #run}, with the value of the outcome, or a typed exception for the others. */
    public <R, X extends Exception> R call(IdempotentCall call, Class<R> resultType, CallAction<R, X> action)
            throws X {
        return CallAnswers.valueOf(run(call, resultType, action), call);
    }

    /** {@link #run(IdempotentCall, Type, CallAction)}, with the value or a typed exception, as {@link #call}. */
    public <R, X extends Exception> R call(IdempotentCall call, Type resultType, CallAction<R, X> action) throws X {
        return CallAnswers.valueOf(run(call, resultType, action), call);
    }

    /**
     * {@link #run} as a stage. Over an {@link AsyncStore} the calling thread is never blocked, and the
     * action starts where the engine's decision completes (see {@link AsyncCallAction}); over a
     * blocking {@link Store} the engine's part runs on the calling thread. A failing action's exception completes the stage unchanged; so does a refusal of
     * the call itself ({@link IllegalArgumentException}).
     */
    public <R> CompletionStage<CallOutcome<R>> runAsync(IdempotentCall call, Class<R> resultType,
                                                        AsyncCallAction<R> action) {
        Objects.requireNonNull(resultType, "resultType");
        Objects.requireNonNull(action, "action");
        CompletableFuture<CallOutcome<R>> outcome = new CompletableFuture<>();
        CompletionStage<Decision> decided;
        try {
            decided = engine.beforeAsync(request(call));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        decided.whenComplete((decision, failure) -> {
            try {
                if (failure != null) {
                    outcome.completeExceptionally(unwrapped(failure));
                } else if (decision instanceof Decision.Respond answer) {
                    outcome.complete(CallAnswers.outcome(answer, codec, resultType));
                } else {
                    proceed(proceeding(decision).execution(), action, outcome);
                }
            } catch (RuntimeException | Error e) {
                outcome.completeExceptionally(e);
            }
        });
        return outcome;
    }

    /** {@link #runAsync}, completed with the value of the outcome, or a typed exception for the others. */
    public <R> CompletionStage<R> callAsync(IdempotentCall call, Class<R> resultType, AsyncCallAction<R> action) {
        CompletableFuture<R> value = new CompletableFuture<>();
        runAsync(call, resultType, action).whenComplete((outcome, failure) -> {
            if (failure != null) {
                value.completeExceptionally(unwrapped(failure));
                return;
            }
            try {
                value.complete(CallAnswers.valueOf(outcome, call));
            } catch (RuntimeException e) {
                value.completeExceptionally(e);
            }
        });
        return value;
    }

    private <R> void proceed(Execution execution, AsyncCallAction<R> action, CompletableFuture<CallOutcome<R>> outcome) {
        CompletionStage<R> running;
        try {
            running = Objects.requireNonNull(action.run(contextOf(execution)), "the action's stage");
        } catch (RuntimeException | Error e) {
            running = CompletableFuture.failedFuture(e);
        }
        running.whenComplete((value, failure) -> {
            byte[] result;
            try {
                if (failure != null) {
                    throw unwrapped(failure);
                }
                result = codec.encode(value);
            } catch (Throwable failed) {
                execution.failAsync(failed).whenComplete((released, ignored) -> outcome.completeExceptionally(failed));
                return;
            }
            execution.finishAsync(CapturedResponse.of(200, JSON_HEADERS, result)).whenComplete((instead, e) -> {
                if (e != null) {
                    outcome.completeExceptionally(unwrapped(e));
                } else {
                    outcome.complete(executed(value, instead));
                }
            });
        });
    }

    private CallRequest request(IdempotentCall call) {
        return new CallRequest(Objects.requireNonNull(call, "call"), keyHeader, codec.encode(call.input()));
    }

    private static Decision.Proceed proceeding(Decision decision) {
        if (decision instanceof Decision.Proceed proceed) {
            return proceed;
        }
        throw new IllegalStateException("The engine let a call pass through untracked");
    }

    /**
     * Executed — unless the execution answers instead, which for a call means the atomic mode's commit
     * failed and took the action's writes with it.
     */
    private static <R> CallOutcome<R> executed(R value, Optional<HttpReply> instead) {
        return instead.isPresent() ? CallAnswers.storageUnavailable(null) : new CallOutcome.Executed<>(value);
    }

    private static CallContext contextOf(Execution execution) {
        return new CallContext() {
            @Override
            public <T> Optional<T> unwrap(Class<T> type) {
                return execution.unwrap(type);
            }
        };
    }

    private static Throwable unwrapped(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /**
     * The configuration calls are decided by: the one given, with the call method covered, every
     * result stored and a call's own tenant first. For a binding's defaults, such as how long a
     * message consumer waits before a duplicate in flight is delivered again.
     */
    public IdempotencyConfig config() {
        return engine.config();
    }

    /** Stops the engine's timer thread; calls still running lose their lease renewal. */
    @Override
    public void close() {
        engine.close();
    }
}
