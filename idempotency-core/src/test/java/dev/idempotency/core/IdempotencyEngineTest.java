package dev.idempotency.core;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.adapter.RequestView;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Each numbered rule of the engine, checked in process against the in-memory store. */
class IdempotencyEngineTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BODY = "{\"item\":\"book\",\"quantity\":2}";

    private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    private final InMemoryStore memory = new InMemoryStore();
    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    private IdempotencyEngine engine = engine(c -> c);

    @AfterEach
    void close() {
        engine.close();
    }

    private IdempotencyEngine engine(UnaryOperator<IdempotencyConfig.Builder> customize) {
        return engine(memory, customize);
    }

    private IdempotencyEngine engine(Store store, UnaryOperator<IdempotencyConfig.Builder> customize) {
        IdempotencyConfig.Builder b = IdempotencyConfig.builder()
                .clock(clock)
                .tenantResolver(TenantResolver.header("X-Tenant-Id", "public"))
                .listener(events::add);
        return new IdempotencyEngine(store, customize.apply(b).build());
    }

    private static RequestView post(String path, String key, String body, String... headers) {
        return request("POST", path, key, body, headers);
    }

    private static RequestView request(String method, String path, String key, String body, String... headers) {
        Map<String, List<String>> map = new LinkedHashMap<>();
        map.put("Content-Type", List.of("application/json"));
        if (key != null) {
            map.put("Idempotency-Key", new ArrayList<>(List.of(key)));
        }
        for (int i = 0; i < headers.length; i += 2) {
            map.computeIfAbsent(headers[i], n -> new ArrayList<>()).add(headers[i + 1]);
        }
        return RequestView.of(method, path, map, body.getBytes(StandardCharsets.UTF_8));
    }

    private static CapturedResponse created(String body) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("Content-Type", List.of("application/json"));
        headers.put("Location", List.of("/orders/1"));
        headers.put("Set-Cookie", List.of("session=secret"));
        headers.put("Authorization", List.of("Bearer secret"));
        headers.put("X-Internal", List.of("not allow-listed"));
        return CapturedResponse.of(201, headers, body.getBytes(StandardCharsets.UTF_8));
    }

    /** Runs the request through the engine like an adapter would; returns what the client gets. */
    private HttpReply run(RequestView request, CapturedResponse handlerResponse, AtomicInteger executions) {
        Decision decision = engine.before(request);
        if (decision instanceof Decision.Respond respond) {
            return respond.reply();
        }
        executions.incrementAndGet();
        HttpReply sent = new HttpReply(handlerResponse.status(), handlerResponse.headers(), handlerResponse.body());
        if (decision instanceof Decision.Proceed proceed) {
            return proceed.execution().finish(handlerResponse).orElse(sent);
        }
        return sent;
    }

    private static Decision.Proceed proceed(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Proceed.class);
        return (Decision.Proceed) decision;
    }

    private static JsonNode problem(Decision decision, int status, String code) throws Exception {
        assertThat(decision).isInstanceOf(Decision.Respond.class);
        HttpReply reply = ((Decision.Respond) decision).reply();
        assertThat(reply.status()).isEqualTo(status);
        assertThat(reply.header("Content-Type")).isEqualTo("application/problem+json");
        assertThat(reply.header("Cache-Control")).isEqualTo("no-store");
        JsonNode json = JSON.readTree(reply.body());
        assertThat(json.path("code").asText()).isEqualTo(code);
        assertThat(json.path("status").asInt()).isEqualTo(status);
        assertThat(json.path("type").asText()).isEqualTo("urn:idempotency:problem:" + code);
        assertThat(json.path("title").asText()).isNotBlank();
        assertThat(json.path("detail").asText()).isNotBlank();
        return json;
    }

    // 1. Scope
    @Test
    void onlyConfiguredMethodsAreInScope() {
        assertThat(engine.before(request("GET", "/orders", "k1", ""))).isInstanceOf(Decision.PassThrough.class);
        assertThat(engine.before(request("PUT", "/orders", "k1", BODY))).isInstanceOf(Decision.PassThrough.class);
        assertThat(engine.before(post("/orders", "k1", BODY))).isInstanceOf(Decision.Proceed.class);

        engine.close();
        engine = engine(c -> c.methods("PUT", "patch"));
        assertThat(engine.before(request("PATCH", "/orders", "k2", BODY))).isInstanceOf(Decision.Proceed.class);
        assertThat(engine.before(post("/orders", "k3", BODY))).isInstanceOf(Decision.PassThrough.class);
    }

    // 2. Key
    @Test
    void bareAndQuotedKeysAreTheSameKey() {
        AtomicInteger runs = new AtomicInteger();
        run(post("/orders", "abc'def", BODY), created("{}"), runs);
        HttpReply second = run(post("/orders", "\"abc'def\"", BODY), created("{}"), runs);
        HttpReply escaped = run(post("/orders", "\"abc\\'def\"", BODY), created("{}"), runs);

        assertThat(second.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(escaped.status()).as("\\' is not an sf-string escape").isEqualTo(400);
        assertThat(runs).hasValue(1);
    }

    @Test
    void invalidKeysAreRejected() throws Exception {
        List<String> invalid = List.of("", "   ", "k".repeat(256), "a b", "caf\u00e9", "tab\there", "\"\"",
                "\"open", "\"bad\\n\"", "\"x\"y", "\"x\";a=1", "\"\u00e9\"");
        for (String key : invalid) {
            JsonNode json = problem(engine.before(post("/orders", key, BODY)), 400, "idempotency_key_invalid");
            assertThat(json.path("detail").asText()).as(key).startsWith("The Idempotency-Key");
        }
        assertThat(engine.before(post("/orders", "k".repeat(255), BODY))).isInstanceOf(Decision.Proceed.class);
        assertThat(engine.before(post("/orders", "!~", BODY))).isInstanceOf(Decision.Proceed.class);
        assertThat(memory.size()).isEqualTo(2);
    }

    @Test
    void aRepeatedKeyHeaderIsRejected() throws Exception {
        problem(engine.before(post("/orders", "k1", BODY, "idempotency-key", "k2")), 400, "idempotency_key_invalid");
        problem(engine.before(post("/orders", "k1", BODY, "Idempotency-Key", "k1")), 400, "idempotency_key_invalid");
        assertThat(memory.size()).isZero();
    }

    @Test
    void aMissingKeyPassesThroughUnlessRequired() throws Exception {
        assertThat(engine.before(post("/orders", null, BODY))).isInstanceOf(Decision.PassThrough.class);

        engine.close();
        engine = engine(c -> c.keyRequired(true));
        problem(engine.before(post("/orders", null, BODY)), 400, "idempotency_key_missing");
    }

    @Test
    void theHeaderNameIsConfigurable() {
        engine.close();
        engine = engine(c -> c.headerName("X-Request-Key"));
        assertThat(engine.before(post("/orders", "k1", BODY))).isInstanceOf(Decision.PassThrough.class);
        assertThat(engine.before(post("/orders", null, BODY, "x-request-key", "k1"))).isInstanceOf(Decision.Proceed.class);
    }

    // 3. Namespace
    @Test
    void theNamespaceIsTenantMethodPathAndKey() {
        Decision.Proceed first = proceed(engine.before(post("/orders?debug=true", "k1", BODY, "X-Tenant-Id", "t1")));
        assertThat(first.execution().key()).isEqualTo(new RecordKey("t1", "POST", "/orders", "k1"));

        problemIgnoringBody(engine.before(post("/orders?debug=true", "k1", BODY, "X-Tenant-Id", "t1")), 409);
        problemIgnoringBody(engine.before(post("/orders/?debug=true", "k1", BODY, "X-Tenant-Id", "t1")), 409);
        problemIgnoringBody(engine.before(post("/orders", "k1", BODY, "X-Tenant-Id", "t1")), 422);
        assertThat(engine.before(post("/payments", "k1", BODY, "X-Tenant-Id", "t1"))).isInstanceOf(Decision.Proceed.class);
        assertThat(engine.before(post("/orders", "k1", BODY, "X-Tenant-Id", "t2"))).isInstanceOf(Decision.Proceed.class);
        assertThat(engine.before(request("PUT", "/orders", "k1", BODY, "X-Tenant-Id", "t1")))
                .isInstanceOf(Decision.PassThrough.class);
    }

    @Test
    void anUnknownTenantIsRejected() throws Exception {
        problem(engine.before(post("/orders", "k1", BODY, "X-Tenant-Id", "a", "X-Tenant-Id", "b")), 400,
                "idempotency_tenant_unknown");
        problem(engine.before(post("/orders", "k1", BODY, "X-Tenant-Id", "bad tenant")), 400,
                "idempotency_tenant_unknown");
        problem(engine.before(post("/orders", "k1", BODY, "X-Tenant-Id", "t".repeat(192))), 400,
                "idempotency_tenant_unknown");
        assertThat(memory.size()).isZero();
    }

    @Test
    void aTenantResolverNamingATenantLongerThanAnyTableHoldsIsAnUnknownTenant() throws Exception {
        engine.close();
        engine = engine(c -> c.tenantResolver(request -> Optional.of("t".repeat(RecordKey.MAX_TENANT_LENGTH + 1))));
        problem(engine.before(post("/orders", "k1", BODY)), 400, "idempotency_tenant_unknown");
        assertThat(memory.size()).isZero();

        engine.close();
        engine = engine(c -> c.tenantResolver(request -> Optional.of("t".repeat(RecordKey.MAX_TENANT_LENGTH))));
        assertThat(engine.before(post("/orders", "k1", BODY))).isInstanceOf(Decision.Proceed.class);
    }

    @Test
    void aPathLongerThanAnyTableHoldsIsRejectedWith414BeforeTheStoreIsAsked() throws Exception {
        String longest = "/" + "p".repeat(RecordKey.MAX_PATH_LENGTH - 1);
        problem(engine.before(post(longest + "p", "k1", BODY)), 414, "idempotency_path_too_long");
        assertThat(memory.size()).isZero();
        // The limit applies to the normalized path: a query string does not count.
        assertThat(engine.before(post(longest + "?q=" + "x".repeat(1000), "k1", BODY))).isInstanceOf(Decision.Proceed.class);
    }

    private static void problemIgnoringBody(Decision decision, int status) {
        assertThat(decision).isInstanceOf(Decision.Respond.class);
        assertThat(((Decision.Respond) decision).reply().status()).isEqualTo(status);
    }

    // 4. Fingerprint
    @Test
    void theFingerprintIsTheSha256OfTheMediaTypeAndTheCanonicalBody() throws Exception {
        proceed(engine.before(post("/orders", "k1", "{\"b\":[2,1],\"a\":{\"y\":1,\"x\":2}}")));

        IdempotencyRecord record = memory.find(new RecordKey("public", "POST", "/orders", "k1"), clock.instant())
                .orElseThrow();
        // SHA-256 over the media type, a NUL, and the canonical body
        MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
        byte[] expected = sha256.digest("application/json\u0000{\"a\":{\"x\":2,\"y\":1},\"b\":[2,1]}"
                .getBytes(StandardCharsets.UTF_8));
        assertThat(record.fingerprint()).isEqualTo(HexFormat.of().formatHex(expected));
        assertThat(record.fingerprint()).hasSize(64).matches("[0-9a-f]+");
    }

    @Test
    void aQueryIsHashedRawAheadOfTheMediaTypeBetweenTwoBytesUtf8NeverHas() throws Exception {
        proceed(engine.before(post("/orders?item=%41&n=1", "k1", "{}")));

        IdempotencyRecord record = memory.find(new RecordKey("public", "POST", "/orders", "k1"), clock.instant())
                .orElseThrow();
        MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
        sha256.update((byte) 0xFF);
        sha256.update("item=%41&n=1".getBytes(StandardCharsets.UTF_8));
        sha256.update((byte) 0xFF);
        byte[] expected = sha256.digest("application/json\u0000{}".getBytes(StandardCharsets.UTF_8));
        assertThat(record.fingerprint()).isEqualTo(HexFormat.of().formatHex(expected));
    }

    @Test
    void theMediaTypeIsPartOfTheFingerprintButItsParametersAndCaseAreNot() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        run(post("/orders", "k1", BODY), created("{}"), runs);

        HttpReply sameType = run(RequestView.of("POST", "/orders", Map.of("Content-Type",
                List.of("Application/JSON; charset=utf-8"), "Idempotency-Key", List.of("k1")),
                BODY.getBytes(StandardCharsets.UTF_8)), created("{}"), runs);
        assertThat(sameType.header("Idempotent-Replayed")).isEqualTo("true");

        // byte-identical, but a text/plain body is another request
        Decision plain = engine.before(RequestView.of("POST", "/orders", Map.of("Content-Type",
                List.of("text/plain"), "Idempotency-Key", List.of("k1")), BODY.getBytes(StandardCharsets.UTF_8)));
        problem(plain, 422, "idempotency_key_conflict");
        Decision none = engine.before(RequestView.of("POST", "/orders", Map.of("Idempotency-Key", List.of("k1")),
                BODY.getBytes(StandardCharsets.UTF_8)));
        problem(none, 422, "idempotency_key_conflict");
        assertThat(runs).hasValue(1);
    }

    @Test
    void forTextTheCharsetIsPartOfTheFingerprint() throws Exception {
        byte[] bytes = {(byte) 0xC3, (byte) 0xA9}; // "é" in UTF-8, "Ã©" in ISO-8859-1
        RequestView utf8 = RequestView.of("POST", "/notes", Map.of("Content-Type",
                List.of("text/plain; charset=UTF-8"), "Idempotency-Key", List.of("k1")), bytes);
        RequestView quoted = RequestView.of("POST", "/notes", Map.of("Content-Type",
                List.of("Text/Plain;Charset=\"utf-8\""), "Idempotency-Key", List.of("k1")), bytes);
        RequestView latin1 = RequestView.of("POST", "/notes", Map.of("Content-Type",
                List.of("text/plain; charset=ISO-8859-1"), "Idempotency-Key", List.of("k1")), bytes);
        AtomicInteger runs = new AtomicInteger();
        run(utf8, created("{}"), runs);

        assertThat(run(quoted, created("{}"), runs).header("Idempotent-Replayed")).isEqualTo("true");
        problem(engine.before(latin1), 422, "idempotency_key_conflict");
        assertThat(runs).hasValue(1);
    }

    // 4b. The path and the query
    @Test
    void theQueryIsPartOfTheFingerprintNotOfTheRecord() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        run(post("/orders?dryRun=true", "k1", BODY), created("{}"), runs);

        assertThat(run(post("/orders/?dryRun=true", "k1", BODY), created("{}"), runs).header("Idempotent-Replayed"))
                .isEqualTo("true");
        for (String other : List.of("/orders", "/orders?dryRun=false", "/orders?dryRun=true&x=1", "/orders?DRYRUN=true")) {
            problem(engine.before(post(other, "k1", BODY)), 422, "idempotency_key_conflict");
        }
        assertThat(runs).hasValue(1);
        assertThat(memory.find(new RecordKey("public", "POST", "/orders", "k1"), clock.instant())).isPresent();
    }

    @Test
    void theSpellingsEveryRouterFoldsAreOneRecord() {
        AtomicInteger runs = new AtomicInteger();
        run(post("/orders", "k1", BODY), created("{}"), runs);
        for (String spelling : List.of("/orders/", "/orders?", "/orders/?")) {
            HttpReply reply = run(post(spelling, "k1", BODY), created("{}"), runs);
            assertThat(reply.header("Idempotent-Replayed")).as(spelling).isEqualTo("true");
        }
        run(post("/items/a%2fb", "k1", BODY), created("{}"), runs);
        assertThat(run(post("/items/a%2Fb", "k1", BODY), created("{}"), runs).header("Idempotent-Replayed"))
                .isEqualTo("true");
        assertThat(runs).hasValue(2);
        assertThat(memory.find(new RecordKey("public", "POST", "/orders", "k1"), clock.instant())).isPresent();
        assertThat(memory.find(new RecordKey("public", "POST", "/items/a%2Fb", "k1"), clock.instant())).isPresent();
    }

    @Test
    void anEncodedSlashIsAnotherPath() {
        AtomicInteger runs = new AtomicInteger();
        run(post("/items/a/b", "k1", BODY), created("{}"), runs);
        run(post("/items/a%2Fb", "k1", BODY), created("{}"), runs);
        assertThat(runs).hasValue(2);
        assertThat(memory.find(new RecordKey("public", "POST", "/items/a/b", "k1"), clock.instant())).isPresent();
        assertThat(memory.find(new RecordKey("public", "POST", "/items/a%2Fb", "k1"), clock.instant())).isPresent();
    }

    @Test
    void aRefusedPathIsAnsweredWithTheReasonItIsRefusedFor() throws Exception {
        assertThat(problem(engine.before(post("//orders", "k1", BODY)), 400, "idempotency_path_invalid")
                .path("detail").asText()).contains("empty segment").doesNotContain("fragment", "percent-escape");
        assertThat(problem(engine.before(post("/orders/%zz", "k1", BODY)), 400, "idempotency_path_invalid")
                .path("detail").asText()).contains("malformed percent-escape").doesNotContain("fragment");
        assertThat(problem(engine.before(post("/orders/..", "k1", BODY)), 400, "idempotency_path_invalid")
                .path("detail").asText()).contains("dot segment");
    }

    @Test
    void aPathWithAFragmentOrAMalformedEscapeIsRejectedBeforeTheStoreIsAsked() throws Exception {
        AtomicInteger storeCalls = new AtomicInteger();
        engine.close();
        engine = engine(new CountingStore(memory, storeCalls), c -> c);
        // Javalin and Micronaut route these as they are — /items/. and /items/b%75lk reach an
        // /items/{id} handler — so resolving them could file one handler's request under another's record.
        for (String path : List.of("/orders#x", "/orders#/../payments", "/orders%zz", "/orders%", "/items/.",
                "/items/..", "/x/../orders", "/./orders", "/items/b%75lk", "/%6frders", "/items/%2E", "//orders",
                "/items//7")) {
            JsonNode json = problem(engine.before(post(path, "k1", BODY)), 400, "idempotency_path_invalid");
            assertThat(json.path("detail").asText()).doesNotContain("Exception");
        }
        // a router may have normalized the fragment away; the request target still shows it
        RequestView routed = new RequestView() {
            private final RequestView inner = post("/payments", "k1", BODY);
            @Override public String method() { return inner.method(); }
            @Override public String path() { return "/payments"; }
            @Override public String requestTarget() { return "/orders#/../payments"; }
            @Override public List<String> headers(String name) { return inner.headers(name); }
            @Override public byte[] body() { return inner.body(); }
        };
        problem(engine.before(routed), 400, "idempotency_path_invalid");
        assertThat(storeCalls).as("store calls").hasValue(0);
        assertThat(events).extracting(IdempotencyEvent::problemCode).containsOnly("idempotency_path_invalid");
        assertThat(events).extracting(IdempotencyEvent::path).noneMatch(p -> p.contains("?"));
    }

    @Test
    void aPathIsNotCheckedWithoutAKey() {
        assertThat(engine.before(post("/orders#x", null, BODY))).isInstanceOf(Decision.PassThrough.class);
    }

    @Test
    void aBareKeyWithACommaIsRejected() throws Exception {
        problem(engine.before(post("/orders", "key,with,commas,longer-than-twenty-chars", BODY)), 400,
                "idempotency_key_invalid");
        assertThat(engine.before(post("/orders", "\"key,with,commas\"", BODY))).isInstanceOf(Decision.Proceed.class);
    }

    @Test
    void arrayOrderMattersButObjectKeyOrderDoesNot() {
        AtomicInteger runs = new AtomicInteger();
        run(post("/orders", "k1", "{\"a\":1,\"b\":[1,2]}"), created("{}"), runs);
        assertThat(run(post("/orders", "k1", "{\"b\":[1,2],\"a\":1}"), created("{}"), runs).status()).isEqualTo(201);
        assertThat(run(post("/orders", "k1", "{\"b\":[2,1],\"a\":1}"), created("{}"), runs).status()).isEqualTo(422);
        assertThat(runs).hasValue(1);
    }

    @Test
    void theCanonicalizerIsPluggable() {
        engine.close();
        engine = engine(c -> c.canonicalizer(BodyCanonicalizer.rawBytes()));
        AtomicInteger runs = new AtomicInteger();
        run(post("/orders", "k1", "{\"a\":1,\"b\":2}"), created("{}"), runs);
        assertThat(run(post("/orders", "k1", "{\"b\":2,\"a\":1}"), created("{}"), runs).status()).isEqualTo(422);
    }

    // 5. Replay
    @Test
    void aCompletedRecordIsReplayedByteExactWithSafeHeadersOnly() {
        AtomicInteger runs = new AtomicInteger();
        CapturedResponse original = created("{\"id\":1,  \"weird spacing\":true}");
        run(post("/orders", "k1", BODY), original, runs);

        HttpReply replay = run(post("/orders", "k1", BODY), created("{\"id\":2}"), runs);

        assertThat(runs).hasValue(1);
        assertThat(replay.status()).isEqualTo(201);
        assertThat(replay.body()).isEqualTo(original.body());
        assertThat(replay.header("Content-Type")).isEqualTo("application/json");
        assertThat(replay.header("Location")).isEqualTo("/orders/1");
        assertThat(replay.header("Cache-Control")).isEqualTo("private, no-store");
        assertThat(replay.header("X-Content-Type-Options")).isEqualTo("nosniff");
        assertThat(replay.header("Vary")).isEqualTo("Origin");
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replay.header("Set-Cookie")).isNull();
        assertThat(replay.header("Authorization")).isNull();
        assertThat(replay.header("X-Internal")).isNull();
        assertThat(events).extracting(IdempotencyEvent::outcome)
                .containsExactly(IdempotencyEvent.Outcome.EXECUTED_STORED, IdempotencyEvent.Outcome.REPLAYED);
    }

    @Test
    void aReplayAndAProblemCarryTheDateOfTheEnginesClock() throws Exception {
        engine.close();
        engine = engine(c -> c.replayedHeaders(java.util.Set.of("Location", "Date")));
        AtomicInteger runs = new AtomicInteger();
        CapturedResponse dated = CapturedResponse.of(201, Map.of("Content-Type", List.of("application/json"),
                "Date", List.of("Mon, 01 Jan 2024 00:00:00 GMT")), "{}".getBytes(StandardCharsets.UTF_8));
        run(post("/orders", "k1", BODY), dated, runs);
        clock.advance(Duration.ofHours(7).plusSeconds(3)); // two-digit day: IMF-fixdate, not RFC 1123's "1 Jan"

        HttpReply replay = run(post("/orders", "k1", BODY), dated, runs);
        Decision conflict = engine.before(post("/orders", "k1", "{\"other\":1}"));
        Decision missing;
        try (IdempotencyEngine strict = engine(c -> c.keyRequired(true))) {
            missing = strict.before(post("/orders", null, BODY));
        }

        assertThat(runs).hasValue(1);
        assertThat(replay.headers().keySet().stream().filter("Date"::equalsIgnoreCase)).containsExactly("Date");
        assertThat(replay.header("Date")).isEqualTo("Tue, 01 Jan 2030 07:00:03 GMT");
        problem(conflict, 422, "idempotency_key_conflict");
        assertThat(((Decision.Respond) conflict).reply().header("Date")).isEqualTo("Tue, 01 Jan 2030 07:00:03 GMT");
        problem(missing, 400, "idempotency_key_missing");
        assertThat(((Decision.Respond) missing).reply().header("Date")).isEqualTo("Tue, 01 Jan 2030 07:00:03 GMT");
    }

    @Test
    void credentialHeadersCannotBeAllowListed() {
        assertThatThrownBy(() -> IdempotencyConfig.builder().replayedHeaders(java.util.Set.of("Location", "set-cookie")).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("set-cookie");
    }

    @Test
    void hopByHopAndFramingHeadersCannotBeAllowListed() {
        for (String header : List.of("Transfer-Encoding", "content-length", "Connection", "Keep-Alive", "Upgrade",
                "TE", "Trailer", "Proxy-Connection", "Content-Type")) {
            assertThatThrownBy(() -> IdempotencyConfig.builder().replayedHeaders(java.util.Set.of("Location", header))
                    .build()).as(header).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(header);
        }
    }

    // 6. Mismatch
    @Test
    void aDifferentBodyIsAConflictWhetherCompletedOrRunning() throws Exception {
        Decision.Proceed running = proceed(engine.before(post("/orders", "k1", BODY)));
        JsonNode json = problem(engine.before(post("/orders", "k1", "{\"item\":\"pen\"}")), 422,
                "idempotency_key_conflict");
        assertThat(json.path("detail").asText()).isEqualTo("Idempotency-Key reused with a different request (its body, query string or media type)");

        running.execution().finish(created("{}"));
        problem(engine.before(post("/orders", "k1", "{\"item\":\"pen\"}")), 422, "idempotency_key_conflict");
    }

    // 7. Concurrency, default mode
    @Test
    void aDuplicateWhileRunningGets409WithRetryAfter() throws Exception {
        proceed(engine.before(post("/orders", "k1", BODY)));

        Decision duplicate = engine.before(post("/orders", "k1", BODY));

        problem(duplicate, 409, "idempotency_request_in_progress");
        assertThat(((Decision.Respond) duplicate).reply().header("Retry-After")).isEqualTo("1");
    }

    @Test
    void aDuplicateCanWaitAndThenReplay() throws Exception {
        engine.close();
        engine = engine(c -> c.inFlightWait(Duration.ofSeconds(5)).inFlightPollInterval(Duration.ofMillis(5)));
        Decision.Proceed first = proceed(engine.before(post("/orders", "k1", BODY)));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Decision> waiting = pool.submit(() -> engine.before(post("/orders", "k1", BODY)));
            Thread.sleep(50);
            assertThat(waiting).isNotDone();

            first.execution().finish(created("{\"id\":1}"));

            Decision decision = waiting.get(5, TimeUnit.SECONDS);
            assertThat(decision).isInstanceOf(Decision.Respond.class);
            assertThat(((Decision.Respond) decision).isReplay()).isTrue();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aBoundedWaitEndsIn409() throws Exception {
        engine.close();
        engine = engine(c -> c.inFlightWait(Duration.ofMillis(100)).inFlightPollInterval(Duration.ofMillis(5)));
        // The engine reads time from the clock for its deadline; move it forward while it polls.
        proceed(engine.before(post("/orders", "k1", BODY)));
        Thread ticker = new Thread(() -> {
            for (int i = 0; i < 200 && !Thread.currentThread().isInterrupted(); i++) {
                clock.advance(Duration.ofMillis(10));
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        ticker.start();
        try {
            problem(engine.before(post("/orders", "k1", BODY)), 409, "idempotency_request_in_progress");
        } finally {
            ticker.interrupt();
        }
    }

    @Test
    void manyConcurrentIdenticalRequestsRunTheHandlerExactlyOnce() throws Exception {
        int threads = 32;
        AtomicInteger runs = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<HttpReply>> replies = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                replies.add(pool.submit(() -> {
                    go.await();
                    return run(post("/orders", "k1", BODY), created("{\"id\":1}"), runs);
                }));
            }
            go.countDown();
            for (Future<HttpReply> reply : replies) {
                assertThat(reply.get(10, TimeUnit.SECONDS).status()).isIn(201, 409);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(runs).hasValue(1);
    }

    @Test
    void anExpiredLeaseCanBeTakenOverAndTheOldOwnerCannotComplete() {
        engine.close();
        engine = engine(c -> c.lease(Duration.ofSeconds(10)).renewLease(false));
        Decision.Proceed crashed = proceed(engine.before(post("/orders", "k1", BODY)));
        clock.advance(Duration.ofSeconds(11));

        Decision.Proceed retry = proceed(engine.before(post("/orders", "k1", BODY)));
        crashed.execution().finish(created("{\"from\":\"old\"}"));
        retry.execution().finish(created("{\"from\":\"new\"}"));

        HttpReply replay = ((Decision.Respond) engine.before(post("/orders", "k1", BODY))).reply();
        assertThat(new String(replay.body(), StandardCharsets.UTF_8)).isEqualTo("{\"from\":\"new\"}");
        assertThat(events).extracting(IdempotencyEvent::outcome).contains(IdempotencyEvent.Outcome.PERSIST_FAILED);
    }

    @Test
    void aLongRunningHandlerRenewsItsLease() throws Exception {
        engine.close();
        engine = engine(c -> c.lease(Duration.ofMillis(300)).ttl(Duration.ofHours(1)));
        proceed(engine.before(post("/orders", "k1", BODY)));
        RecordKey key = new RecordKey("public", "POST", "/orders", "k1");
        Instant firstLease = memory.find(key, clock.instant()).orElseThrow().leaseUntil();

        clock.advance(Duration.ofSeconds(1));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!memory.find(key, clock.instant()).orElseThrow().leaseUntil().isAfter(firstLease)) {
            assertThat(System.nanoTime()).as("lease renewed within 5 s").isLessThan(deadline);
            Thread.sleep(20);
        }
        problem(engine.before(post("/orders", "k1", BODY)), 409, "idempotency_request_in_progress");
    }

    @Test
    void aHandlerThatOutlivesTheTtlKeepsItsKeyWhileItsLeaseIsRenewed() throws Exception {
        engine.close();
        engine = engine(c -> c.lease(Duration.ofMillis(300)).ttl(Duration.ofSeconds(2)));
        Decision.Proceed first = proceed(engine.before(post("/orders", "k1", BODY)));
        RecordKey key = new RecordKey("public", "POST", "/orders", "k1");

        clock.advance(Duration.ofSeconds(3)); // past the ttl
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!memory.find(key, clock.instant()).map(r -> r.leaseUntil().isAfter(clock.instant())).orElse(false)) {
            assertThat(System.nanoTime()).as("lease renewed past the ttl within 10 s").isLessThan(deadline);
            Thread.sleep(20);
        }
        assertThat(memory.purgeExpired(clock.instant(), 100)).as("a running handler's record stays").isZero();
        problem(engine.before(post("/orders", "k1", BODY)), 409, "idempotency_request_in_progress");

        first.execution().finish(created("{\"id\":1}"));
        assertThat(engine.before(post("/orders", "k1", BODY))).as("the retry replays")
                .isInstanceOfSatisfying(Decision.Respond.class, respond -> assertThat(respond.isReplay()).isTrue());
    }

    // 8. Optimistic mode
    @Test
    void theOptimisticModeLooksUpRunsAndInsertsIfAbsent() {
        engine.close();
        engine = engine(c -> c.mode(Mode.OPTIMISTIC));
        Decision.Proceed first = proceed(engine.before(post("/orders", "k1", BODY)));
        Decision.Proceed twin = proceed(engine.before(post("/orders", "k1", BODY)));
        assertThat(memory.size()).as("nothing reserved").isZero();

        first.execution().finish(created("{\"id\":1}"));
        Optional<HttpReply> late = twin.execution().finish(CapturedResponse.of(409, Map.of(), "{}".getBytes(StandardCharsets.UTF_8)));

        assertThat(late).as("the 409 of a raced twin becomes a replay").isPresent();
        assertThat(new String(late.get().body(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":1}");
        assertThat(late.get().header("Idempotent-Replayed")).isEqualTo("true");
    }

    @Test
    void theOptimisticModeKeepsAGenuine409WhenNothingWasStored() {
        engine.close();
        engine = engine(c -> c.mode(Mode.OPTIMISTIC));
        Decision.Proceed only = proceed(engine.before(post("/orders", "k1", BODY)));
        assertThat(only.execution().finish(CapturedResponse.of(409, Map.of(), new byte[0]))).isEmpty();
    }

    // 9. Replay policy
    @Test
    void onlySuccessfulResponsesAreStored() {
        List<CapturedResponse> failures = List.of(
                CapturedResponse.of(400, Map.of(), new byte[0]),
                CapturedResponse.of(500, Map.of(), new byte[0]),
                CapturedResponse.uncaptured(500, Map.of()),
                CapturedResponse.of(200, Map.of("Content-Type", List.of("application/json")),
                        "{\"status\":\"partial\"}".getBytes(StandardCharsets.UTF_8)),
                CapturedResponse.of(200, Map.of("content-type", List.of("application/json; charset=utf-8")),
                        "{\"nested\":{\"status\":\"ok\"},\"status\":\"failed\"}".getBytes(StandardCharsets.UTF_8)),
                // escaped: the text is still "failed" / "partial"
                CapturedResponse.of(200, Map.of("Content-Type", List.of("application/json")),
                        "{\"st\\u0061tus\":\"f\\u0061iled\"}".getBytes(StandardCharsets.UTF_8)),
                CapturedResponse.of(200, Map.of("Content-Type", List.of("application/json")),
                        "{\"status\":\"\\u0070artial\"}".getBytes(StandardCharsets.UTF_8)));
        for (CapturedResponse response : failures) {
            Decision.Proceed proceed = proceed(engine.before(post("/orders", "k1", BODY)));
            proceed.execution().finish(response);
            assertThat(memory.find(proceed.execution().key(), clock.instant())).as("%s released", response).isEmpty();
        }
        Decision.Proceed ok = proceed(engine.before(post("/orders", "k1", BODY)));
        ok.execution().finish(CapturedResponse.of(200, Map.of("Content-Type", List.of("application/json")),
                "{\"status\":\"succeeded\",\"x\":{\"status\":\"failed\"}}".getBytes(StandardCharsets.UTF_8)));
        assertThat(memory.find(ok.execution().key(), clock.instant()).orElseThrow().response().bodyStored()).isTrue();
    }

    @Test
    void theReplayPolicyIsPluggable() {
        engine.close();
        engine = engine(c -> c.replayPolicy(ReplayPolicy.defaults().and(r -> r.status() != 202)));
        Decision.Proceed proceed = proceed(engine.before(post("/orders", "k1", BODY)));
        proceed.execution().finish(CapturedResponse.of(202, Map.of(), new byte[0]));
        assertThat(memory.size()).isZero();
    }

    @Test
    void aFailingHandlerStoresNothingAndReleasesTheKey() {
        Decision.Proceed proceed = proceed(engine.before(post("/orders", "k1", BODY)));
        proceed.execution().fail(new IllegalStateException("boom"));

        assertThat(memory.size()).isZero();
        assertThat(engine.before(post("/orders", "k1", BODY))).isInstanceOf(Decision.Proceed.class);
        assertThat(events).extracting(IdempotencyEvent::outcome).contains(IdempotencyEvent.Outcome.EXECUTION_FAILED);
    }

    // 10. Persist failure
    @Test
    void aPersistFailureLeavesTheResponseAloneAndLogsOnlyAKeyPreview() throws Exception {
        ThrowingCompleteStore failing = new ThrowingCompleteStore(clock);
        engine.close();
        engine = engine(failing, c -> c);
        Decision.Proceed proceed = proceed(engine.before(post("/orders", "secret-key-123456", BODY)));

        Optional<HttpReply> reply = proceed.execution().finish(created("{}"));

        assertThat(reply).as("the original response goes out").isEmpty();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (events.stream().noneMatch(e -> e.outcome() == IdempotencyEvent.Outcome.PERSIST_FAILED)) {
            assertThat(System.nanoTime()).as("the retries give up at the lease's end").isLessThan(deadline);
            Thread.sleep(10);
        }
        assertThat(events).extracting(IdempotencyEvent::keyPreview).contains("secr…");
    }

    /** Counts every call the engine makes to a store. */
    private record CountingStore(Store delegate, AtomicInteger calls) implements Store {
        @Override
        public ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                                     Duration ttl) {
            calls.incrementAndGet();
            ReserveResult result = delegate.reserve(key, fingerprint, ownerToken, now, lease, ttl);
            return result instanceof ReserveResult.Acquired ? ReserveResult.acquired(this, key, ownerToken) : result;
        }

        @Override
        public boolean complete(RecordKey key, String ownerToken, StoredResponse response) {
            calls.incrementAndGet();
            return delegate.complete(key, ownerToken, response);
        }

        @Override
        public boolean renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
            calls.incrementAndGet();
            return delegate.renew(key, ownerToken, now, lease);
        }

        @Override
        public boolean releaseIfOwned(RecordKey key, String ownerToken) {
            calls.incrementAndGet();
            return delegate.releaseIfOwned(key, ownerToken);
        }

        @Override
        public Optional<IdempotencyRecord> find(RecordKey key, Instant now) {
            calls.incrementAndGet();
            return delegate.find(key, now);
        }

        @Override
        public boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now,
                                       Duration ttl) {
            calls.incrementAndGet();
            return delegate.insertCompleted(key, fingerprint, response, now, ttl);
        }

        @Override
        public int purgeExpired(Instant now, int limit) {
            calls.incrementAndGet();
            return delegate.purgeExpired(now, limit);
        }
    }

    /**
     * A store whose complete always fails, as a database error after the handler (or, in the
     * atomic mode, a failed final commit) would; each failure takes 10 s of {@code clock}, so the
     * engine's retries run into the lease's end.
     */
    private static final class ThrowingCompleteStore implements Store {
        private final InMemoryStore delegate = new InMemoryStore();
        private final MutableClock clock;

        ThrowingCompleteStore(MutableClock clock) {
            this.clock = clock;
        }

        @Override
        public java.util.Optional<Atomic> atomic() {
            return java.util.Optional.of(this::attemptInTransaction);
        }

        dev.idempotency.core.store.AtomicAttempt<dev.idempotency.core.store.Reservation> attemptInTransaction(
                RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease, Duration ttl,
                Duration wait) {
            ReserveResult result = reserve(key, fingerprint, ownerToken, now, lease, ttl);
            return result instanceof ReserveResult.Acquired acquired
                    ? new dev.idempotency.core.store.AtomicAttempt.Won<>(acquired.reservation())
                    : new dev.idempotency.core.store.AtomicAttempt.Lost<>(((ReserveResult.Existing) result).record());
        }

        @Override
        public boolean releaseIfOwned(RecordKey key, String ownerToken) {
            return delegate.releaseIfOwned(key, ownerToken);
        }

        @Override
        public ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                                     Duration ttl) {
            ReserveResult result = delegate.reserve(key, fingerprint, ownerToken, now, lease, ttl);
            return result instanceof ReserveResult.Acquired ? ReserveResult.acquired(this, key, ownerToken) : result;
        }

        @Override
        public boolean complete(RecordKey key, String ownerToken, StoredResponse response) {
            clock.advance(Duration.ofSeconds(10));
            throw new IllegalStateException("UPDATE failed");
        }

        @Override
        public boolean renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
            return delegate.renew(key, ownerToken, now, lease);
        }

        @Override
        public Optional<IdempotencyRecord> find(RecordKey key, Instant now) {
            return delegate.find(key, now);
        }

        @Override
        public boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now, Duration ttl) {
            return delegate.insertCompleted(key, fingerprint, response, now, ttl);
        }

        @Override
        public int purgeExpired(Instant now, int limit) {
            return delegate.purgeExpired(now, limit);
        }
    }

    @Test
    void inTheAtomicModeAFailedCommitTurnsTheSuccessInto503() throws Exception {
        engine.close();
        engine = engine(new ThrowingCompleteStore(clock), c -> c.mode(Mode.ATOMIC));
        Decision.Proceed proceed = proceed(engine.before(post("/orders", "k1", BODY)));

        Optional<HttpReply> reply = proceed.execution().finish(created("{}"));

        assertThat(reply).as("the handler's writes were rolled back with the commit").isPresent();
        assertThat(reply.get().status()).isEqualTo(503);
        assertThat(JSON.readTree(reply.get().body()).path("code").asText()).isEqualTo("idempotency_storage_unavailable");
        assertThat(reply.get().header("Retry-After")).isEqualTo("1");
    }

    // 11. Storage unavailable
    @Test
    void unavailableStorageAnswers503AndTheHandlerDoesNotRun() throws Exception {
        for (StorageUnavailableException.Reason reason : StorageUnavailableException.Reason.values()) {
            engine.close();
            engine = engine(new DownStore(reason), c -> c);
            Decision decision = engine.before(post("/orders", "k1", BODY));
            JsonNode json = problem(decision, 503, "idempotency_storage_unavailable");
            assertThat(json.path("detail").asText()).isEqualTo(switch (reason) {
                case NOT_PROVISIONED -> "Idempotency storage is not provisioned";
                case BUSY -> "Idempotency storage is busy";
                case UNREACHABLE -> "Idempotency storage is unreachable";
            });
            assertThat(((Decision.Respond) decision).reply().header("Retry-After")).isEqualTo("1");
        }
    }

    private record DownStore(StorageUnavailableException.Reason reason) implements Store {
        private StorageUnavailableException down() {
            return new StorageUnavailableException(reason, "down", null);
        }

        @Override
        public ReserveResult reserve(RecordKey key, String fingerprint, String ownerToken, Instant now, Duration lease,
                                     Duration ttl) {
            throw down();
        }

        @Override
        public boolean complete(RecordKey key, String ownerToken, StoredResponse response) {
            throw down();
        }

        @Override
        public boolean renew(RecordKey key, String ownerToken, Instant now, Duration lease) {
            throw down();
        }

        @Override
        public boolean releaseIfOwned(RecordKey key, String ownerToken) {
            throw down();
        }

        @Override
        public Optional<IdempotencyRecord> find(RecordKey key, Instant now) {
            throw down();
        }

        @Override
        public boolean insertCompleted(RecordKey key, String fingerprint, StoredResponse response, Instant now, Duration ttl) {
            throw down();
        }

        @Override
        public int purgeExpired(Instant now, int limit) {
            throw down();
        }
    }

    // 12. Expiry
    @Test
    void anExpiredRecordCountsAsAbsent() {
        engine.close();
        engine = engine(c -> c.ttl(Duration.ofMinutes(10)).lease(Duration.ofMinutes(1)));
        AtomicInteger runs = new AtomicInteger();
        run(post("/orders", "k1", BODY), created("{}"), runs);
        clock.advance(Duration.ofMinutes(9));
        assertThat(run(post("/orders", "k1", "{\"other\":1}"), created("{}"), runs).status()).isEqualTo(422);

        clock.advance(Duration.ofMinutes(2));
        assertThat(run(post("/orders", "k1", "{\"other\":1}"), created("{}"), runs).header("Idempotent-Replayed")).isNull();
        assertThat(runs).hasValue(2);
    }

    @Test
    void nonsenseSettingsFailFast() {
        assertThatThrownBy(() -> IdempotencyConfig.builder().ttl(Duration.ofSeconds(-1)).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IdempotencyConfig.builder().lease(Duration.ofHours(2)).ttl(Duration.ofHours(1)).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IdempotencyConfig.builder().methods(java.util.Set.of()).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IdempotencyConfig.builder().headerName("bad header").build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new IdempotencyEngine(memory, IdempotencyConfig.builder().mode(Mode.ATOMIC).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("The atomic mode needs a store that joins the "
                        + "application's transaction (JdbcStore, PgStore); the configured store cannot, so use the reserve mode");
    }

    // 13. Problem format is checked by problem(..) in every rejection test; the body size limit too:
    @Test
    void anOversizedRequestBodyIsRejectedWith413() throws Exception {
        engine.close();
        engine = engine(c -> c.maxRequestBodyBytes(10));
        problem(engine.before(post("/orders", "k1", BODY)), 413, "idempotency_request_too_large");
    }

    // 14. Observability
    @Test
    void theListenerHearsEveryOutcome() {
        AtomicInteger runs = new AtomicInteger();
        run(request("GET", "/orders", null, ""), created("{}"), runs);
        run(post("/orders", "k1", BODY), created("{}"), runs);
        run(post("/orders", "k1", BODY), created("{}"), runs);
        run(post("/orders", "k1", "{}"), created("{}"), runs);

        assertThat(events).extracting(IdempotencyEvent::outcome).containsExactly(
                IdempotencyEvent.Outcome.PASSED_THROUGH, IdempotencyEvent.Outcome.EXECUTED_STORED,
                IdempotencyEvent.Outcome.REPLAYED, IdempotencyEvent.Outcome.REJECTED);
        assertThat(events.get(3).problemCode()).isEqualTo("idempotency_key_conflict");
        assertThat(events.get(1).tenant()).isEqualTo("public");
    }

    @Test
    void aThrowingListenerDoesNotBreakTheRequest() {
        engine.close();
        engine = engine(c -> c.listener(e -> {
            throw new IllegalStateException("metrics down");
        }));
        assertThat(engine.before(post("/orders", "k1", BODY))).isInstanceOf(Decision.Proceed.class);
    }
}
