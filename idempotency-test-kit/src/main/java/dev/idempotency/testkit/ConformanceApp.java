package dev.idempotency.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The business logic behind the routes every adapter serves for {@link HttpConformanceTest}. It
 * counts how often each route's handler ran — the number the suite asserts on. Each adapter test
 * wires these routes with its framework's own native style (status, headers, JSON encoding):
 *
 * <table>
 *   <caption>Routes</caption>
 *   <tr><th>route</th><th>call</th><th>response</th></tr>
 *   <tr><td>{@code POST /orders}</td><td>{@link #createOrder(byte[], String)} with the body and
 *       the {@code delayMs} query parameter</td>
 *       <td>201, JSON of the returned map, headers {@code Location: /orders/<id>},
 *       {@code X-Order-Seq: <id>} and {@code Set-Cookie: session=<id>}</td></tr>
 *   <tr><td>{@code POST /payments}</td><td>{@link #createPayment(byte[])}</td><td>200, JSON of the map</td></tr>
 *   <tr><td>{@code POST /orders/bulk} (a literal route)</td><td>{@link #createBulk(byte[])}</td>
 *       <td>200, JSON of the map</td></tr>
 *   <tr><td>{@code POST /orders/{id}} (a template route: Vert.x {@code /orders/:id})</td>
 *       <td>{@link #updateOrder(String, byte[])} with the {@code id} path parameter as the
 *       framework hands it to the handler (decoded)</td><td>200, JSON of the map</td></tr>
 *   <tr><td>{@code POST /reject}</td><td>{@link #reject()}</td><td>400, JSON of the map</td></tr>
 *   <tr><td>{@code POST /fail}</td><td>{@link #fail()} (throws)</td><td>whatever the framework maps an
 *       uncaught exception to (500)</td></tr>
 *   <tr><td>{@code POST /text}</td><td>{@link #text()}</td><td>200, {@code text/plain; charset=utf-8}</td></tr>
 *   <tr><td>{@code GET /orders}</td><td>{@link #listOrders()}</td><td>200, JSON array</td></tr>
 *   <tr><td>{@code POST /async}</td><td>{@link #createOrderLater(byte[], String)} with the body and the
 *       {@code delayMs} query parameter, answered the framework's asynchronous way when the stage completes
 *       (Spring MVC: {@code DeferredResult} or {@code CompletableFuture}; Micronaut: a
 *       {@code CompletableFuture} return; Javalin: {@code ctx.future}; Vert.x: when the future completes)</td>
 *       <td>201, JSON of the map, {@code Location: /orders/<id>}</td></tr>
 *   <tr><td>{@code POST /stream}</td><td>{@link #streamChunks()}, then each chunk written and flushed to the
 *       client as it comes, {@code delayMs} (query parameter) apart, the framework's streaming way (Spring MVC:
 *       {@code StreamingResponseBody}; others: chunked writes with a flush)</td>
 *       <td>200, {@code text/plain; charset=utf-8}, {@code Location: /streams/<id>}, the chunks</td></tr>
 *   <tr><td>{@code POST /large}</td><td>{@link #large(String, String, String)} with the {@code bytes},
 *       {@code type} and {@code delayMs} query parameters</td>
 *       <td>201, the blob's content type, {@code Location} and body</td></tr>
 *   <tr><td>{@code POST /timeout} (only where the adapter's test declares a server-side timeout,
 *       {@link HttpConformanceTest#serverTimeoutStatus()})</td><td>{@link #createOrderTooLate(byte[], String)},
 *       answered as {@code /async} but under the framework's own asynchronous timeout of
 *       {@link HostileClientChecks#SERVER_TIMEOUT} (Spring MVC: a {@code DeferredResult} timeout; Vert.x: a
 *       {@code TimeoutHandler}; Javalin: the servlet async timeout {@code asyncTimeout} sets; Jakarta REST:
 *       {@code AsyncResponse.setTimeout})</td>
 *       <td>201 as {@code /async}; the framework's timeout answer when it fires first</td></tr>
 *   <tr><td>{@code POST /mapped}</td><td>{@link #createOrderByException(byte[])} (throws {@link Mapped})</td>
 *       <td>the framework's own exception mapping (Spring {@code @ExceptionHandler}, Micronaut
 *       {@code ExceptionHandler}, Javalin {@code exception(..)}, Vert.x failure handler, Jakarta
 *       {@code ExceptionMapper}) turns {@link Mapped} into 201, JSON of {@link Mapped#order()},
 *       {@code Location: /orders/<id>}</td></tr>
 * </table>
 */
public final class ConformanceApp {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> finished = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();
    /** Where each call goes; {@code null}: this app itself. */
    private final Supplier<ConformanceApp> target;
    /** Completed by {@link #endWaits()}: every {@code delayMs} wait of this app ends then, if not before. */
    private final CompletableFuture<Void> waitsEnded = new CompletableFuture<>();

    public ConformanceApp() {
        this(null);
    }

    private ConformanceApp(Supplier<ConformanceApp> target) {
        this.target = target;
    }

    /**
     * An app whose every route call goes, whole, to the app {@code target} gives when the call begins:
     * one server serving each test's own app in turn.
     */
    static ConformanceApp following(Supplier<ConformanceApp> target) {
        return new ConformanceApp(target);
    }

    /**
     * How often the handler of {@code route} ("orders", "payments", "bulk", "order-item", "reject",
     * "fail", "text", "list", "async", "stream", "large", "timeout", "mapped") ran.
     */
    public int executions(String route) {
        return executions.computeIfAbsent(route, r -> new AtomicInteger()).get();
    }

    /**
     * How often the work of {@code route} ("orders", "async", "timeout") came to its end: its answer
     * made, or (asynchronous routes) its future cancelled.
     */
    public int finished(String route) {
        return finished.computeIfAbsent(route, r -> new AtomicInteger()).get();
    }

    /**
     * Ends this app's {@code delayMs} waits now, those under way and any later one: for a test that
     * has seen what it needed while a handler was waiting.
     */
    public void endWaits() {
        if (target != null) {
            target.get().endWaits();
            return;
        }
        waitsEnded.complete(null);
    }

    private int ran(String route) {
        return executions.computeIfAbsent(route, r -> new AtomicInteger()).incrementAndGet();
    }

    /**
     * Parses {@code {"item": .., "quantity": ..}}, waits {@code delayMs} if given (less after
     * {@link #endWaits()}), returns the order.
     */
    public Map<String, Object> createOrder(byte[] body, String delayMs) {
        if (target != null) {
            return target.get().createOrder(body, delayMs);
        }
        ran("orders");
        JsonNode json = parse(body);
        if (delayMs != null && !delayMs.isBlank()) {
            sleep(Long.parseLong(delayMs));
        }
        return finish("orders", newOrder(json));
    }

    private <T> T finish(String route, T answer) {
        finished.computeIfAbsent(route, r -> new AtomicInteger()).incrementAndGet();
        return answer;
    }

    private Map<String, Object> newOrder(JsonNode json) {
        Map<String, Object> order = new LinkedHashMap<>();
        order.put("id", ids.incrementAndGet());
        order.put("item", json.path("item").asText());
        order.put("quantity", json.path("quantity").asInt());
        order.put("status", "created");
        return order;
    }

    /** Parses {@code {"amount": .., "outcome": ..}} and answers with the outcome as its status. */
    public Map<String, Object> createPayment(byte[] body) {
        if (target != null) {
            return target.get().createPayment(body);
        }
        ran("payments");
        JsonNode json = parse(body);
        Map<String, Object> payment = new LinkedHashMap<>();
        payment.put("id", ids.incrementAndGet());
        payment.put("amount", json.path("amount").asInt());
        payment.put("status", json.path("outcome").asText("succeeded"));
        return payment;
    }

    /**
     * The literal route {@code POST /orders/bulk}: answers {@code {"id": <n>, "handler": "bulk"}},
     * so a replay shows whose answer it carries.
     */
    public Map<String, Object> createBulk(byte[] body) {
        if (target != null) {
            return target.get().createBulk(body);
        }
        ran("bulk");
        parse(body);
        Map<String, Object> bulk = new LinkedHashMap<>();
        bulk.put("id", ids.incrementAndGet());
        bulk.put("handler", "bulk");
        return bulk;
    }

    /**
     * The template route {@code POST /orders/{id}}: answers
     * {@code {"id": <n>, "handler": "order-item", "orderId": <the id it received>}}, so a replay
     * shows whose answer it carries and for which id.
     */
    public Map<String, Object> updateOrder(String orderId, byte[] body) {
        if (target != null) {
            return target.get().updateOrder(orderId, body);
        }
        ran("order-item");
        parse(body);
        Map<String, Object> item = new LinkedHashMap<>();
        item.put("id", ids.incrementAndGet());
        item.put("handler", "order-item");
        item.put("orderId", orderId);
        return item;
    }

    public Map<String, Object> reject() {
        if (target != null) {
            return target.get().reject();
        }
        ran("reject");
        return Map.of("error", "rejected by the handler");
    }

    /** Always throws, after counting. */
    public Object fail() {
        if (target != null) {
            return target.get().fail();
        }
        ran("fail");
        throw new IllegalStateException("handler failed on purpose");
    }

    public String text() {
        if (target != null) {
            return target.get().text();
        }
        return "plain text #" + ran("text");
    }

    /**
     * The asynchronous route: counts at once, then completes with an order (as
     * {@link #createOrder}) {@code delayMs} later (or at {@link #endWaits()}) on another thread.
     */
    public CompletableFuture<Map<String, Object>> createOrderLater(byte[] body, String delayMs) {
        if (target != null) {
            return target.get().createOrderLater(body, delayMs);
        }
        return later("async", body, delayMs);
    }

    /** {@link #createOrderLater} counted as "timeout": the route a server-side timeout cuts short. */
    public CompletableFuture<Map<String, Object>> createOrderTooLate(byte[] body, String delayMs) {
        if (target != null) {
            return target.get().createOrderTooLate(body, delayMs);
        }
        return later("timeout", body, delayMs);
    }

    private CompletableFuture<Map<String, Object>> later(String route, byte[] body, String delayMs) {
        ran(route);
        JsonNode json = parse(body);
        long delay = delayMs == null || delayMs.isBlank() ? 0 : Long.parseLong(delayMs);
        CompletableFuture<Void> waited = new CompletableFuture<Void>()
                .completeOnTimeout(null, delay, TimeUnit.MILLISECONDS);
        waitsEnded.thenRun(() -> waited.complete(null));
        CompletableFuture<Map<String, Object>> order = waited.thenApplyAsync(ignored -> finish(route, newOrder(json)));
        order.whenComplete((done, failure) -> {
            if (failure instanceof CancellationException) {
                finish(route, null); // cancelled by the framework: the work ends here, unanswered
            }
        });
        return order;
    }

    /** Counts as "mapped", then throws {@link Mapped} carrying a new order for the framework to answer 201 with. */
    public Object createOrderByException(byte[] body) {
        if (target != null) {
            return target.get().createOrderByException(body);
        }
        ran("mapped");
        throw new Mapped(newOrder(parse(body)));
    }

    /** Thrown by {@code POST /mapped}; the framework's exception mapping answers it 201 with {@link #order()}. */
    public static final class Mapped extends RuntimeException {
        private final transient Map<String, Object> order;

        Mapped(Map<String, Object> order) {
            super("mapped to 201 by the framework", null, false, false);
            this.order = order;
        }

        public Map<String, Object> order() {
            return order;
        }

        /** The {@code Location} to answer with: {@code /orders/<id>}. */
        public String location() {
            return "/orders/" + order.get("id");
        }
    }

    /** The streamed route: counts, and returns its id and the three chunks to write one by one. */
    public Chunks streamChunks() {
        if (target != null) {
            return target.get().streamChunks();
        }
        ran("stream");
        int id = ids.incrementAndGet();
        return new Chunks("/streams/" + id, List.of("chunk 1 of stream " + id + "\n", "chunk 2\n", "chunk 3\n"));
    }

    /**
     * The large route: counts, waits {@code delayMs} if given, and returns {@code bytes} bytes
     * (default 16) of JSON-free text; {@code type=long} gives it a {@code Content-Type} of over
     * 255 characters.
     */
    public Blob large(String bytes, String type, String delayMs) {
        if (target != null) {
            return target.get().large(bytes, type, delayMs);
        }
        ran("large");
        if (delayMs != null && !delayMs.isBlank()) {
            sleep(Long.parseLong(delayMs));
        }
        int id = ids.incrementAndGet();
        byte[] body = new byte[bytes == null || bytes.isBlank() ? 16 : Integer.parseInt(bytes)];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) ('a' + (i + id) % 26);
        }
        String contentType = "long".equals(type)
                ? "application/octet-stream; profile=\"" + "p".repeat(300) + "\""
                : "application/octet-stream";
        return new Blob("/blobs/" + id, contentType, body);
    }

    /** What the streamed route sends: its {@code Location} and its chunks, in order. */
    public record Chunks(String location, List<String> chunks) {
    }

    /** What the large route sends: its {@code Location}, {@code Content-Type} and body. */
    public record Blob(String location, String contentType, byte[] body) {
    }

    public List<Map<String, Object>> listOrders() {
        if (target != null) {
            return target.get().listOrders();
        }
        ran("list");
        return List.of();
    }

    private static JsonNode parse(byte[] body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits {@code millis}, or until {@link #endWaits()}. */
    private void sleep(long millis) {
        try {
            waitsEnded.get(millis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // waited the whole time
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
