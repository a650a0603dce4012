package dev.idempotency.javalin;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.Execution;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.ProblemCode;
import dev.idempotency.framework.internal.Exchange;
import dev.idempotency.framework.servlet.ServletResponses;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import io.javalin.http.servlet.JavalinServletContext;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The two Javalin handlers: the engine's decision before the endpoint, the capture after it. */
final class IdempotencyHooks {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyHooks.class);
    private static final String DECIDED = IdempotencyHooks.class.getName() + ".decided";

    private final IdempotencyEngine engine;

    /**
     * The request attribute holding the exchange the endpoint runs under, between the before hook,
     * the after hook and the filter. Whichever of them decides it first decides.
     */
    private static final String EXCHANGE = Exchange.class.getName();

    static Exchange exchangeOf(ServletRequest request) {
        return request.getAttribute(EXCHANGE) instanceof Exchange exchange ? exchange : null;
    }

    static Execution executionOf(ServletRequest request) {
        Exchange exchange = exchangeOf(request);
        return exchange == null ? null : exchange.execution();
    }

    IdempotencyHooks(IdempotencyEngine engine) {
        this.engine = engine;
    }

    /** A {@code beforeMatched} handler: runs only when a route will handle the request. */
    void before(Context ctx) {
        if (ctx.attribute(DECIDED) != null) {
            return; // overlapping path patterns: decide once
        }
        ctx.attribute(DECIDED, Boolean.TRUE);
        Decision decision;
        try {
            decision = engine.before(new JavalinRequestView(ctx));
        } catch (HttpResponseException e) {
            if (e.getStatus() != HttpStatus.CONTENT_TOO_LARGE.getCode()) {
                throw e;
            }
            // Javalin refuses to read a body over its own maxRequestSize (1,000,000 bytes by
            // default, below the engine's 1 MiB); answer as the engine answers for its own limit.
            write(ctx, engine.reject(new JavalinRequestView(ctx), ProblemCode.IDEMPOTENCY_REQUEST_TOO_LARGE,
                    "The request body exceeds the server's maximum request size").reply());
            ctx.skipRemainingHandlers();
            return;
        }
        if (decision instanceof Decision.Proceed proceed) {
            ctx.attribute(EXCHANGE, new Exchange(engine, proceed.execution()));
        } else if (decision instanceof Decision.Respond respond) {
            write(ctx, respond.reply());
            ctx.skipRemainingHandlers();
        }
    }

    /**
     * An {@code after} handler: Javalin runs it also when the endpoint threw (after mapping the
     * exception), once a {@code ctx.future} has completed, and before it writes the result, so an
     * in-memory result reaches the engine before the client. A stream result is read only as
     * Javalin writes it, after this handler: the filter finishes that one once it has been sent.
     */
    void after(Context ctx) {
        Exchange exchange = exchangeOf(ctx.req());
        if (exchange == null) {
            return;
        }
        try {
            // An exception an exception handler answered with a 2xx is stored like any 2xx: the client saw a success.
            if (exceptionOccurred(ctx) && (ctx.statusCode() < 200 || ctx.statusCode() >= 300)) {
                exchange.fail(new EndpointFailed(ctx.statusCode())).join();
                return;
            }
            if (resultIsStream(ctx) && IdempotencyFilter.finishesWhenSent(ctx.req())) {
                log.debug("Result for key_preview={} is a stream; finished once sent",
                        exchange.execution().key().keyPreview());
                return;
            }
            exchange.finish(capture(ctx)).join().ifPresent(reply -> replace(ctx, reply));
        } catch (RuntimeException e) {
            log.warn("Could not hand the response for key_preview={} to the engine",
                    exchange.execution().key().keyPreview(), e);
            exchange.fail(e);
        }
    }

    /**
     * Javalin records that a handler threw on its servlet context; after handlers see only the
     * status the exception was mapped to, which may well be a 2xx.
     */
    private static boolean exceptionOccurred(Context ctx) {
        return ctx instanceof JavalinServletContext servletContext && servletContext.getExceptionOccurred();
    }

    /** Whether the result is a stream other than in-memory bytes ({@code ctx.result(InputStream)}). */
    private static boolean resultIsStream(Context ctx) {
        InputStream result = ctx.resultInputStream();
        return result != null && !(result instanceof ByteArrayInputStream);
    }

    /**
     * The status, headers and exact result bytes. Only an in-memory result ({@code ctx.result}
     * with a string or bytes, {@code ctx.json}) can be captured without changing what the client
     * gets; a stream result or a direct write (streamed to the client) is reported as uncaptured.
     */
    private static CapturedResponse capture(Context ctx) {
        HttpServletResponse res = ctx.res();
        int status = ctx.statusCode();
        Map<String, List<String>> headers = ServletResponses.headersOf(res);
        if (IdempotencyFilter.wroteDirectly(ctx.req(), res) || resultIsStream(ctx)) {
            return CapturedResponse.uncaptured(status, headers);
        }
        if (!(ctx.resultInputStream() instanceof ByteArrayInputStream bytes)) {
            return CapturedResponse.of(status, headers, new byte[0]);
        }
        bytes.mark(0);
        byte[] body = bytes.readAllBytes();
        bytes.reset(); // Javalin writes the same stream afterwards
        return CapturedResponse.of(status, headers, body);
    }

    /** The engine's reply replaces whatever the endpoint set. */
    private static void replace(Context ctx, HttpReply reply) {
        if (ctx.res().isCommitted()) {
            log.warn("Response already committed; cannot replace it with the stored response");
            return;
        }
        ctx.res().reset();
        write(ctx, reply);
    }

    /** Writes exactly the reply's status, headers and body. */
    private static void write(Context ctx, HttpReply reply) {
        ServletResponses.writeHead(reply, ctx.res());
        ctx.result(reply.body());
    }

    /** Stands for the exception Javalin already mapped and logged; only its status is known here. */
    static final class EndpointFailed extends RuntimeException {
        EndpointFailed(int mappedStatus) {
            super("the endpoint or a handler before it threw; Javalin answered " + mappedStatus, null, false, false);
        }
    }
}
