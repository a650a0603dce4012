package dev.idempotency.examples.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.BodyCanonicalizer;
import dev.idempotency.examples.ExampleRequests;
import dev.idempotency.examples.ProblemException;
import dev.idempotency.testkit.RawResponse;
import dev.idempotency.testkit.internal.RawHttp;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

/**
 * Bad input against real example services (every mode, PostgreSQL): random
 * {@code Idempotency-Key} header lines sent byte for byte over a socket — absent, empty, too
 * long, with control or non-ASCII bytes, quoted with bad escapes, repeated — and random bodies —
 * invalid JSON, deep nesting, huge numbers, duplicate members, over the size limit.
 *
 * <p>Each answer must be the one the documented rules give (an oracle below computes it from the
 * README's key rules and the example's own request validation): the order, a replay, or a
 * documented 4xx — never a 5xx, never a hung connection — and a rejected request leaves no
 * idempotency record and no order behind.
 *
 * <p>One service process per mode ({@code reserve}, {@code atomic}, {@code optimistic}) on the same
 * schema serves all tries, each try picking one — one at a time, the modes answer alike — and a
 * fourth, the WebFlux service on {@code R2dbcStore} in the reserve mode, which the oracle answers
 * alike (Javalin's limit is raised to the engine's 1 MiB), and a fifth,
 * the Quarkus service on {@code JdbcStore} in the reserve mode, with Quarkus's larger header and
 * body limits. Real
 * processes rather than an in-process server: the point is the whole HTTP stack (Jetty's parser,
 * the Javalin plugin, the engine, the store) as a client meets it, the same way as the other
 * proofs; starting one JVM per try would cost seconds each.
 */
class BadInputFuzzTest {

    /** Jetty's default limit for the request line and headers together. */
    private static final int HEADER_LIMIT = 8192;
    /**
     * The engine's default {@code maxRequestBodyBytes}, and the example's Javalin {@code maxRequestSize}:
     * without a key, the endpoint's own read of a longer body gets Javalin's
     * {@code 413 text/plain "Content Too Large"}; under a key, the engine's 413 problem.
     */
    private static final int ENGINE_BODY_LIMIT = 1 << 20;
    /**
     * Quarkus's defaults, which the example keeps: {@code quarkus.http.limits.max-header-size} 20K
     * and {@code max-body-size} 10240K. So a key line of 9,000–12,000 bytes reaches the engine (a
     * key too long), and a body over 1 MiB without a key reaches the resource.
     */
    private static final int QUARKUS_HEADER_LIMIT = 20 * 1024;
    private static final int QUARKUS_BODY_LIMIT = 10240 * 1024;

    private static PostgresSchema schema;
    /** The WebFlux service (R2dbcStore, reserve mode) beside the Javalin ones: its body limit is the engine's. */
    private static final String WEBFLUX = "webflux-reserve";
    /** The Quarkus service (JdbcStore, reserve mode): Vert.x's HTTP server, Quarkus's limits. */
    private static final String QUARKUS = "quarkus-reserve";
    private static final List<String> MODES = List.of("reserve", "atomic", "optimistic", WEBFLUX, QUARKUS);
    /** One service per mode, all on the same schema: sequential requests get the same answers in every mode. */
    private static final Map<String, ExampleProcess> services = new HashMap<>();
    private static Connection db;
    /** Keys whose request was executed and stored, with the canonical body it was stored for. */
    private static final Map<String, byte[]> stored = new HashMap<>();

    @BeforeContainer
    static void startService() throws Exception {
        schema = PostgresSchema.create("rel_fuzz");
        for (String mode : MODES) {
            Map<String, String> reserve = Map.of("DATABASE_URL", schema.exampleUrl(), "IDEMPOTENCY_MODE", "reserve");
            services.put(mode, mode.equals(WEBFLUX) ? ExampleProcess.start(ExampleService.WEBFLUX_R2DBC, "fuzz-" + mode, reserve)
                    : mode.equals(QUARKUS) ? ExampleProcess.start(ExampleService.QUARKUS_JDBC, "fuzz-" + mode, reserve)
                    : ExampleProcess.start("fuzz-" + mode,
                            Map.of("DATABASE_URL", schema.exampleUrl(), "IDEMPOTENCY_MODE", mode)));
        }
        db = schema.connect();
    }

    @AfterContainer
    static void stopService() throws Exception {
        try {
            if (db != null) {
                db.close();
            }
            services.values().forEach(ExampleProcess::close);
            services.clear();
        } finally {
            if (schema != null) {
                schema.close();
            }
        }
    }

    /** A key header as sent: zero or more raw lines, and what kind of input it is. */
    record KeyHeader(String kind, List<byte[]> lines) {
        @Override
        public String toString() {
            List<String> shown = new ArrayList<>();
            for (byte[] line : lines) {
                shown.add(show(line));
            }
            return kind + " " + shown;
        }
    }

    /** A body as sent. */
    record Body(String kind, byte[] bytes, String contentType) {
        @Override
        public String toString() {
            return kind + " (" + bytes.length + " bytes, " + contentType + ") " + show(Arrays.copyOf(bytes,
                    Math.min(bytes.length, 120)));
        }
    }

    @Property(tries = 200)
    void badInputGetsADocumentedAnswerAndLeavesNothingBehind(@ForAll("modes") String mode,
                                                               @ForAll("keyHeaders") KeyHeader key,
                                                               @ForAll("bodies") Body body) throws Exception {
        Expected expected = expect(key, body, mode.equals(QUARKUS) ? QUARKUS_HEADER_LIMIT : HEADER_LIMIT,
                mode.equals(QUARKUS) ? QUARKUS_BODY_LIMIT : ENGINE_BODY_LIMIT);
        long recordsBefore = count("SELECT count(*) FROM idempotency_keys");
        long ordersBefore = count("SELECT count(*) FROM example_orders");

        RawResponse answer = RawHttp.post(URI.create("http://127.0.0.1:" + services.get(mode).port()), "/orders",
                key.lines(), body.contentType(), body.bytes());

        String what = mode + ": " + key + " / " + body + " -> " + describe(answer) + "; expected " + expected;
        Statistics.label("answer").collect(answer.status() + problemCode(answer));
        Statistics.label("key").collect(key.kind());
        Statistics.label("mode").collect(mode);
        assertThat(answer.status()).as("an answer, and never a 5xx: " + what).isBetween(200, 499);
        assertThat(answer.status()).as(what).isEqualTo(expected.status());
        if (expected.code() != null) {
            assertThat(contentType(answer)).as(what).startsWith("application/problem+json");
            assertThat(problemCode(answer)).as(what).isEqualTo(" " + expected.code());
        }
        boolean replayed = answer.replayed();
        assertThat(replayed).as(what).isEqualTo(expected.replayed());

        boolean executed = answer.status() == 201 && !replayed;
        assertThat(count("SELECT count(*) FROM example_orders") - ordersBefore)
                .as("an order only from an executed request: " + what).isEqualTo(executed ? 1 : 0);
        boolean newRecord = executed && expected.key() != null;
        assertThat(count("SELECT count(*) FROM idempotency_keys") - recordsBefore)
                .as("a record only from an executed request with a valid key: " + what).isEqualTo(newRecord ? 1 : 0);
        if (expected.key() != null) {
            long rows = count("SELECT count(*) FROM idempotency_keys WHERE key = ? AND state = 'COMPLETED'",
                    expected.key());
            boolean shouldExist = newRecord || stored.containsKey(expected.key());
            assertThat(rows).as("the key's record: " + what).isEqualTo(shouldExist ? 1 : 0);
            if (newRecord) {
                stored.put(expected.key(), canonical(body));
            }
        }
    }

    // ---- the oracle: the README's rules ------------------------------------------------------

    /** The answer the documented rules give: status, problem code (null when not a problem), replay. */
    record Expected(int status, String code, boolean replayed, String key) {
    }

    private static Expected expect(KeyHeader header, Body body, int serverHeaderLimit, int serverBodyLimit) {
        int headerBytes = header.lines().stream().mapToInt(l -> l.length + 2).sum() + 150;
        if (headerBytes > serverHeaderLimit) {
            return new Expected(431, null, false, null); // Request Header Fields Too Large
        }
        for (byte[] line : header.lines()) {
            if (hasForbiddenControl(line)) {
                // Not a valid HTTP field value (RFC 9110 §5.5): the server's parser answers 400 itself
                // (or, where it passes the value on, the engine: a key with such a byte is invalid).
                return new Expected(400, null, false, null);
            }
        }
        boolean bodyValid = isValidOrder(body.bytes());
        boolean overServerLimit = body.bytes().length > serverBodyLimit;
        List<String> values = values(header.lines()).stream().map(BadInputFuzzTest::trimOws).toList();
        if (values.isEmpty()) {
            return overServerLimit ? new Expected(413, null, false, null)
                    : bodyValid ? new Expected(201, null, false, null)
                    : new Expected(400, "validation_failed", false, null);
        }
        String key = parseKey(values); // the engine reads the key before the body
        if (key == null) {
            return new Expected(400, "idempotency_key_invalid", false, null);
        }
        if (overServerLimit || body.bytes().length > ENGINE_BODY_LIMIT) {
            return new Expected(413, "idempotency_request_too_large", false, key);
        }
        if (stored.containsKey(key)) {
            return Arrays.equals(stored.get(key), canonical(body))
                    ? new Expected(201, null, true, key)
                    : new Expected(422, "idempotency_key_conflict", false, key);
        }
        return bodyValid ? new Expected(201, null, false, key) : new Expected(400, "validation_failed", false, key);
    }

    /**
     * The README: an RFC 8941 string of 1–255 printable ASCII characters (spaces too, but not only
     * spaces), or a bare key of 1–255 token characters, ':', '/' and '='; once.
     */
    private static String parseKey(List<String> values) {
        if (values.size() != 1 || values.get(0).isEmpty()) {
            return null;
        }
        String raw = values.get(0);
        String key = raw;
        boolean quoted = raw.charAt(0) == '"';
        if (quoted) {
            StringBuilder out = new StringBuilder();
            int i = 1;
            boolean closed = false;
            for (; i < raw.length(); i++) {
                char c = raw.charAt(i);
                if (c == '\\') {
                    if (++i == raw.length() || raw.charAt(i) != '"' && raw.charAt(i) != '\\') {
                        return null;
                    }
                    out.append(raw.charAt(i));
                } else if (c == '"') {
                    closed = true;
                    break;
                } else if (c < 0x20 || c > 0x7E) {
                    return null;
                } else {
                    out.append(c);
                }
            }
            if (!closed || i != raw.length() - 1) {
                return null;
            }
            key = out.toString();
        }
        if (key.isEmpty() || key.length() > 255) {
            return null;
        }
        if (quoted) {
            return key.isBlank() ? null : key; // its characters were checked while unquoting
        }
        for (char c : key.toCharArray()) {
            if (c < 0x21 || c > 0x7E || "\"(),;<>?@[\\]{}".indexOf(c) >= 0) {
                return null;
            }
        }
        return key;
    }

    /** Control characters other than HTAB, which RFC 9110 does not allow in a field value. */
    private static boolean hasForbiddenControl(byte[] line) {
        for (byte b : line) {
            if (b >= 0 && b < 0x20 && b != '\t' || b == 0x7F) {
                return true;
            }
        }
        return false;
    }

    private static String trimOws(String value) {
        int start = 0;
        int end = value.length();
        while (start < end && (value.charAt(start) == ' ' || value.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (value.charAt(end - 1) == ' ' || value.charAt(end - 1) == '\t')) {
            end--;
        }
        return value.substring(start, end);
    }

    /** The example's own request rules decide what a valid order is. */
    private static boolean isValidOrder(byte[] body) {
        try {
            ExampleRequests.order(body);
            return true;
        } catch (ProblemException e) {
            return false;
        }
    }

    /** What the fingerprint covers (README): the media type without parameters, and the canonical body. */
    private static byte[] canonical(Body body) {
        String type = body.contentType() == null ? "" : body.contentType().split(";", 2)[0].strip()
                .toLowerCase(Locale.ROOT);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes((type + "\0").getBytes(StandardCharsets.UTF_8));
        out.writeBytes(BodyCanonicalizer.sortedJson().canonicalize(body.bytes(), body.contentType()));
        return out.toByteArray();
    }

    private static String contentType(RawResponse answer) {
        return answer.header("Content-Type").orElse("");
    }

    private static String describe(RawResponse answer) {
        String body = answer.bodyText();
        return answer.status() + " [" + contentType(answer) + "] " + (body.length() > 300 ? body.substring(0, 300) + "…" : body);
    }

    /** {@code name: value} as bytes, the value taken byte for byte. */
    static byte[] headerLine(String name, byte[] value) {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        line.writeBytes((name + ": ").getBytes(StandardCharsets.US_ASCII));
        line.writeBytes(value);
        return line.toByteArray();
    }

    /** The header lines' values as the server's parser sees them, for oracles: bytes read as ISO-8859-1. */
    static List<String> values(List<byte[]> lines) {
        List<String> values = new ArrayList<>();
        for (byte[] line : lines) {
            String text = new String(line, StandardCharsets.ISO_8859_1);
            values.add(text.substring(text.indexOf(':') + 1));
        }
        return values;
    }

    private static String problemCode(RawResponse answer) {
        if (!contentType(answer).startsWith("application/problem+json")) {
            return answer.status() >= 400 ? " [" + contentType(answer) + "]" : "";
        }
        int at = answer.bodyText().indexOf("\"code\":\"");
        return at < 0 ? " (no code)" : " " + answer.bodyText().substring(at + 8, answer.bodyText().indexOf('"', at + 8));
    }

    private static long count(String sql, Object... parameters) throws SQLException {
        try (PreparedStatement p = db.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                p.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    // ---- generators --------------------------------------------------------------------------

    private static final String NAME = "Idempotency-Key";

    @Provide
    Arbitrary<String> modes() {
        return Arbitraries.of(MODES);
    }

    @Provide
    Arbitrary<KeyHeader> keyHeaders() {
        Arbitrary<String> visible = Arbitraries.strings().withCharRange('!', '~').ofMinLength(1).ofMaxLength(255);
        char[] tokenChars = IntStream.rangeClosed('!', '~')
                .filter(c -> "\"(),;<>?@[\\]{}".indexOf(c) < 0)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
                .toString().toCharArray();
        Arbitrary<String> bare = Arbitraries.strings().withChars(tokenChars).ofMinLength(1).ofMaxLength(255);
        Arbitrary<String> ows = Arbitraries.of("", "", " ", "\t", "  ");
        return Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.just(new KeyHeader("absent", List.of()))),
                Tuple.of(4, Combinators.combine(ows, bare, ows).as((a, k, b) -> one("valid", a + k + b))),
                Tuple.of(2, Combinators.combine(ows, visible, ows).as((a, k, b) -> one("visible", a + k + b))),
                Tuple.of(2, Combinators.combine(bare, Arbitraries.of(",", ", ", ";", "@", "(", "\\", "{"), bare)
                        .as((a, d, b) -> one("bare with a delimiter", a + d + b))),
                Tuple.of(2, Arbitraries.strings().withCharRange('!', '~').withChars(' ').ofMinLength(1).ofMaxLength(60)
                        .map(s -> one("quoted", quote(s)))),
                Tuple.of(2, Arbitraries.of("", " ", "\t", " \t ").map(v -> one("empty", v))),
                Tuple.of(2, Arbitraries.strings().withCharRange('!', '~').ofMinLength(256).ofMaxLength(2000)
                        .map(v -> one("too long", v))),
                Tuple.of(1, Arbitraries.integers().between(9000, 12000).map(n -> one("oversized", "k".repeat(n)))),
                Tuple.of(3, Combinators.combine(visible, controlBytes(), Arbitraries.integers().between(0, 255))
                        .as((k, ctl, at) -> new KeyHeader("control bytes", List.of(headerLine(NAME,
                                insert(k, ctl, at)))))),
                Tuple.of(3, Combinators.combine(visible, nonAscii(), Arbitraries.integers().between(0, 255))
                        .as((k, bytes, at) -> new KeyHeader("non-ASCII", List.of(headerLine(NAME,
                                insert(k, bytes, at)))))),
                Tuple.of(3, Combinators.combine(Arbitraries.strings().alpha().numeric().ofMaxLength(20), badQuoting())
                        .as((k, form) -> one("bad quoting", form.replace("K", k)))),
                Tuple.of(2, Combinators.combine(visible, visible, Arbitraries.of(NAME, "idempotency-key",
                        "IDEMPOTENCY-KEY"), Arbitraries.of(true, false)).as((a, b, otherName, same) ->
                        new KeyHeader("repeated", List.of(line(NAME, a), line(otherName, same ? a : b))))),
                Tuple.of(1, Arbitraries.of("a b", "a,b", "a, b", "a;b", "\"a\", \"b\"", "a\tb")
                        .map(v -> one("separators", v))));
    }

    @Provide
    Arbitrary<Body> bodies() {
        Arbitrary<String> item = Arbitraries.strings().alpha().numeric().withChars(' ', 'é', '€', '\u4e2d', '"', '\\')
                .ofMinLength(1).ofMaxLength(30);
        Arbitrary<Integer> quantity = Arbitraries.integers().between(1, 10_000);
        Arbitrary<String> order = Combinators.combine(item, quantity, Arbitraries.of(true, false))
                .as((i, q, swap) -> swap
                        ? "{ \"quantity\" : " + q + ", \"item\" : " + jsonString(i) + " }"
                        : "{\"item\":" + jsonString(i) + ",\"quantity\":" + q + "}");
        return Arbitraries.frequencyOf(
                Tuple.of(4, order.map(o -> body("valid order", o))),
                Tuple.of(3, Combinators.combine(order, Arbitraries.integers().between(0, 40)).as((o, cut) ->
                        body("truncated", o.substring(0, Math.min(cut, o.length() - 1))))),
                Tuple.of(2, Arbitraries.of("", "null", "[]", "\"order\"", "{", "}", "{\"item\":}", "{'item':'a','quantity':1}",
                        "{\"item\":\"a\",\"quantity\":1} trailing", "{\"item\":\"a\",\"quantity\":1,}", "not json",
                        "{\"item\":\"a\" \"quantity\":1}", "\u0000", "{\"item\":\"\\uZZZZ\",\"quantity\":1}")
                        .map(s -> body("invalid JSON", s))),
                Tuple.of(2, Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(200)
                        .map(b -> new Body("random bytes", b, "application/json"))),
                Tuple.of(3, Combinators.combine(Arbitraries.integers().between(1, 5000), Arbitraries.of("[", "{\"a\":"),
                        Arbitraries.of(true, false)).as(BadInputFuzzTest::deep)),
                Tuple.of(3, Arbitraries.of("1".repeat(20), "9".repeat(400), "9".repeat(1500), "1e400", "1e999999", "-1", "0",
                                "-0", "1.0", "1.5", "1e2", "2147483647", "2147483648", "0.0000001", "NaN", "Infinity", "0x10")
                        .map(n -> body("huge/odd number", "{\"item\":\"a\",\"quantity\":" + n + "}"))),
                Tuple.of(1, Arbitraries.of("9".repeat(2000), "1e999999999", "-" + "1".repeat(1200))
                        .map(n -> body("huge number elsewhere", "{\"item\":\"a\",\"quantity\":1,\"x\":" + n + "}"))),
                Tuple.of(2, Arbitraries.of(
                                "{\"item\":\"a\",\"quantity\":1,\"quantity\":2}",
                                "{\"item\":\"a\",\"quantity\":2,\"quantity\":0}",
                                "{\"item\":\"a\",\"item\":\"b\",\"quantity\":1}",
                                "{\"item\":\"a\",\"item\":7,\"quantity\":1}")
                        .map(s -> body("duplicate members", s))),
                Tuple.of(1, Arbitraries.of(ENGINE_BODY_LIMIT - 100, ENGINE_BODY_LIMIT + 100, ENGINE_BODY_LIMIT + 10_000).map(size -> body(
                        "large", "{\"item\":\"a\",\"quantity\":1,\"pad\":\"" + "x".repeat(size) + "\"}"))));
    }

    /**
     * Control bytes inside a field value. Not CR or LF: those end the line, and Jetty takes what
     * follows as a field of its own ({@code !\n!:} is the valid key {@code !} and a field named
     * {@code !}) — another input than a value carrying a control byte.
     */
    private static Arbitrary<byte[]> controlBytes() {
        Arbitrary<Byte> ctl = Arbitraries.oneOf(Arbitraries.bytes().between((byte) 0, (byte) 0x1F)
                        .filter(b -> b != '\n' && b != '\r'),
                Arbitraries.just((byte) 0x7F));
        return ctl.list().ofMinSize(1).ofMaxSize(3).map(list -> {
            byte[] bytes = new byte[list.size()];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = list.get(i);
            }
            return bytes;
        });
    }

    private static Arbitrary<byte[]> nonAscii() {
        return Arbitraries.oneOf(
                Arbitraries.bytes().between((byte) 0x80, (byte) 0xFF).list().ofMinSize(1).ofMaxSize(4).map(list -> {
                    byte[] bytes = new byte[list.size()];
                    for (int i = 0; i < bytes.length; i++) {
                        bytes[i] = list.get(i);
                    }
                    return bytes;
                }),
                Arbitraries.of("é", "ключ", "\u00a0", "\u2028", "\ud83d\udd11", "\ufeff")
                        .map(s -> s.getBytes(StandardCharsets.UTF_8)));
    }

    private static Arbitrary<String> badQuoting() {
        return Arbitraries.of("\"K", "\"K\\x\"", "\"K\\\"", "\"K\"tail", "\"\"", "\"", "\"K\\", "\"K\" \"K\"",
                "\"K\\u0041\"", "K\"", "\"K\\\\\\\"", "\"K\t\"");
    }

    private static Body deep(int depth, String opener, boolean insideOrder) {
        String closer = opener.equals("[") ? "]" : "}";
        String nested = opener.repeat(depth) + "1" + closer.repeat(depth);
        return insideOrder
                ? body("deep nesting (" + depth + ") in an order", "{\"item\":\"a\",\"quantity\":1,\"x\":" + nested + "}")
                : body("deep nesting (" + depth + ")", nested);
    }

    private static KeyHeader one(String kind, String value) {
        return new KeyHeader(kind, List.of(line(NAME, value)));
    }

    private static byte[] line(String name, String value) {
        return headerLine(name, value.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static byte[] insert(String key, byte[] bytes, int at) {
        byte[] k = key.getBytes(StandardCharsets.US_ASCII);
        int position = Math.min(at, k.length);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(k, 0, position);
        out.writeBytes(bytes);
        out.write(k, position, k.length - position);
        return out.toByteArray();
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static Body body(String kind, String json) {
        return new Body(kind, json.getBytes(StandardCharsets.UTF_8), "application/json");
    }

    private static String jsonString(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** Bytes for a failure message: printable ASCII as is, anything else as \xNN. */
    private static String show(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            int c = b & 0xFF;
            if (c >= 0x20 && c < 0x7F) {
                out.append((char) c);
            } else {
                out.append(String.format("\\x%02x", c));
            }
            if (out.length() > 200) {
                out.append("…");
                break;
            }
        }
        return out.toString();
    }
}
