package dev.idempotency.javalin;

import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.IdempotencyEngine;
import io.javalin.config.JavalinState;
import io.javalin.http.Context;
import io.javalin.plugin.Plugin;
import jakarta.servlet.DispatcherType;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.eclipse.jetty.ee10.servlet.FilterHolder;

/**
 * Idempotency-Key handling for Javalin 7: register it once and the route handlers stay as they
 * are.
 *
 * <pre>{@code
 * Javalin.create(cfg -> {
 *     cfg.registerPlugin(new IdempotencyPlugin(engine, "/orders", "/payments"));
 *     cfg.routes.post("/orders", ctx -> ctx.status(201).json(orders.create(ctx.bodyAsClass(NewOrder.class))));
 * });
 * }</pre>
 *
 * <p>For each request to a covered path that has a matching route (Javalin's own 404 and 405
 * answers never reach the engine) the plugin asks the engine before the endpoint runs: a replay
 * or a problem is answered at once and the endpoint is skipped; otherwise the endpoint runs and,
 * in an after handler, its status, headers and result bytes go to the engine before Javalin
 * writes the response.
 *
 * <p>An endpoint that threw, even when an exception handler mapped it to a 2xx, releases its key:
 * a retry runs again. A success whose body is not captured — a stream result
 * ({@code ctx.result(InputStream)}), anything written directly to the output stream (flushed
 * chunks, SSE, {@code writeSeekableStream}, {@code writeJsonStream}) — is kept without its body
 * once the response has been sent: a retry gets 410 {@code idempotency_response_not_stored}.
 * {@code ctx.bodyInputStream()} still gives the endpoint the whole body after the plugin read it.
 *
 * <p>The plugin registers a {@code beforeMatched} handler per covered path, one {@code after}
 * handler, and a servlet filter that keeps the request body re-readable, notices direct writes,
 * and, once the response has been sent, finishes an execution the after handler left open (a
 * stream result) or never saw (an endpoint that called {@code ctx.skipRemainingHandlers()}).
 */
public final class IdempotencyPlugin extends Plugin<IdempotencyPlugin.Config> {

    /** Settings of the plugin; the engine carries everything else. */
    public static final class Config {
        private IdempotencyEngine engine;
        private final List<String> paths = new ArrayList<>();

        /** The engine to consult; required. */
        public Config engine(IdempotencyEngine engine) {
            this.engine = Objects.requireNonNull(engine, "engine");
            return this;
        }

        /**
         * Javalin path patterns the plugin covers ({@code "/orders"}, {@code "/api/*"},
         * {@code "/accounts/{id}/transfers"}); all paths ({@code "*"}) when none is given.
         */
        public Config paths(String... paths) {
            for (String path : paths) {
                this.paths.add(Objects.requireNonNull(path, "path"));
            }
            return this;
        }
    }

    private final IdempotencyEngine engine;
    private final List<String> paths;

    /** Covers every path, or only {@code paths} (Javalin path patterns) when given. */
    public IdempotencyPlugin(IdempotencyEngine engine, String... paths) {
        this(config -> config.engine(engine).paths(paths));
    }

    /** Configures the plugin through {@link Config}. */
    public IdempotencyPlugin(Consumer<Config> userConfig) {
        super(Objects.requireNonNull(userConfig, "userConfig"), new Config());
        if (pluginConfig.engine == null) {
            throw new IllegalArgumentException("IdempotencyPlugin needs an engine: config.engine(...)");
        }
        this.engine = pluginConfig.engine;
        this.paths = pluginConfig.paths.isEmpty() ? List.of("*") : List.copyOf(pluginConfig.paths);
    }

    /**
     * The execution the current request runs under, when the plugin let it through to the
     * endpoint under a key; empty for requests it passed through, answered, or does not cover.
     * In the atomic mode {@code execution.unwrap(...)} gives the endpoint the transaction to
     * write in.
     */
    public static Optional<Execution> execution(Context ctx) {
        return Optional.ofNullable(IdempotencyHooks.executionOf(ctx.req()));
    }

    @Override
    public void onStart(JavalinState state) {
        IdempotencyHooks hooks = new IdempotencyHooks(engine);
        for (String path : paths) {
            state.routes.beforeMatched(path, hooks::before);
        }
        // Registered for every path: it acts only on requests the before hook let through.
        state.routes.after("*", hooks::after);
        state.jetty.modifyServletContextHandler(handler -> handler.addFilter(
                new FilterHolder(new IdempotencyFilter(engine.config())), "/*", EnumSet.of(DispatcherType.REQUEST)));
    }
}
