package dev.idempotency.core.canonical.reference;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.idempotency.core.BodyCanonicalizer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The reference for the core's canonicalizers: the {@code JcsCanonicalizer} of core commit
 * 9b84ab0 (a Jackson char parser over a strictly decoded copy of the body, a {@code TreeMap} tree,
 * a {@code StringBuilder} writer), kept unchanged apart from its name so that the differential tests
 * can hold every later implementation to its bytes. Not to be optimized.
 *
 * <p>RFC 8785 JSON Canonicalization Scheme (JCS).
 *
 * <p>For a body that is I-JSON (strict RFC 8259 JSON in well-formed UTF-8, without duplicate member
 * names or unpaired surrogates, with every number a finite IEEE-754 double) the result is the UTF-8
 * encoding of its RFC 8785 canonical form: no whitespace, object members sorted by the UTF-16 code
 * units of their names at every level, array order kept, numbers serialized as ECMAScript does
 * ({@link ReferenceEcmaScriptNumbers}), and strings escaped only where the RFC requires it.
 *
 * <p>Any other body — a non-JSON content type, an empty body, one starting with a byte order mark,
 * or one that fails any of the checks above, including one nested deeper than Jackson's default
 * limit — is returned unchanged. The method never throws and keeps no state, so the shared
 * instances are thread-safe.
 *
 * <p>{@link #LAST_DUPLICATE_WINS} is the same canonical form with one difference: a duplicate
 * member name is not an error, the last one wins — exactly what {@code JSON.stringify} over a
 * key-sorted {@code JSON.parse} produces, the behaviour of {@link BodyCanonicalizer#sortedJson()}.
 */
public final class ReferenceJcsCanonicalizer implements BodyCanonicalizer {

    /** Strict RFC 8785: duplicate member names make a body non-canonicalizable. */
    public static final ReferenceJcsCanonicalizer INSTANCE = new ReferenceJcsCanonicalizer(true);

    /** RFC 8785 output, JavaScript parsing: the last of duplicate member names wins. */
    public static final ReferenceJcsCanonicalizer LAST_DUPLICATE_WINS = new ReferenceJcsCanonicalizer(false);

    // Bodies are untrusted input; their member names have no business in the JVM's string pool.
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
            .build();

    /** The JSON literals, kept apart from strings and numbers in the parsed tree. */
    private enum Literal {
        NULL("null"), TRUE("true"), FALSE("false");

        private final String text;

        Literal(String text) {
            this.text = text;
        }
    }

    private final boolean rejectDuplicateNames;

    private ReferenceJcsCanonicalizer(boolean rejectDuplicateNames) {
        this.rejectDuplicateNames = rejectDuplicateNames;
    }

    @Override
    public byte[] canonicalize(byte[] body, String contentType) {
        if (body == null || body.length == 0 || !BodyCanonicalizer.looksLikeJson(contentType)) {
            return body;
        }
        try {
            CharBuffer text = decodeStrictUtf8(body);
            Object root = parse(text);
            if (root == null) {
                return body;
            }
            return write(root, body.length).getBytes(StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException notCanonicalizable) {
            return body;
        }
    }

    /**
     * Decodes with Java's decoder rather than Jackson's byte parser because it rejects every
     * ill-formed sequence, overlong forms and encoded surrogates included.
     */
    private static CharBuffer decodeStrictUtf8(byte[] body) throws IOException {
        return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(body));
    }

    /**
     * Builds a tree of {@code TreeMap} (objects, already in canonical order), {@code ArrayList},
     * {@code String}, {@code Double} and {@link Literal}, with an explicit stack so that deep
     * nesting costs heap, not call stack. Containers are tested by class rather than by interface
     * because class checks are markedly cheaper on the hot path.
     *
     * @return the root, or {@code null} when the text is not a single I-JSON value
     */
    @SuppressWarnings("unchecked")
    private Object parse(CharBuffer text) throws IOException {
        try (JsonParser parser = JSON.createParser(text.array(), text.arrayOffset() + text.position(),
                text.remaining())) {
            Deque<Object> open = new ArrayDeque<>();
            Object root = null;
            String name = null;
            for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                if (root != null && open.isEmpty()) {
                    return null; // a second value after the first one
                }
                Object value;
                switch (token) {
                    case FIELD_NAME:
                        name = parser.currentName();
                        if (hasUnpairedSurrogate(name)) {
                            return null;
                        }
                        continue;
                    case END_OBJECT:
                    case END_ARRAY:
                        open.pop();
                        continue;
                    case START_OBJECT:
                        value = new TreeMap<String, Object>();
                        break;
                    case START_ARRAY:
                        value = new ArrayList<>();
                        break;
                    case VALUE_STRING:
                        String string = parser.getText();
                        if (hasUnpairedSurrogate(string)) {
                            return null;
                        }
                        value = string;
                        break;
                    case VALUE_NUMBER_INT:
                    case VALUE_NUMBER_FLOAT:
                        // JCS reads every number as a double, big integers included
                        double number = parser.getDoubleValue();
                        if (!Double.isFinite(number)) {
                            return null;
                        }
                        value = number;
                        break;
                    case VALUE_TRUE:
                        value = Literal.TRUE;
                        break;
                    case VALUE_FALSE:
                        value = Literal.FALSE;
                        break;
                    case VALUE_NULL:
                        value = Literal.NULL;
                        break;
                    default:
                        return null;
                }
                Object parent = open.peek();
                if (parent == null) {
                    root = value;
                } else if (parent instanceof ArrayList) {
                    ((ArrayList<Object>) parent).add(value);
                } else if (((TreeMap<String, Object>) parent).put(name, value) != null && rejectDuplicateNames) {
                    return null; // duplicate member name
                }
                if (value instanceof TreeMap || value instanceof ArrayList) {
                    open.push(value);
                }
            }
            return root != null && open.isEmpty() ? root : null;
        }
    }

    private static boolean hasUnpairedSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    /** An open container on the writer's stack. */
    private static final class Frame {
        final Iterator<?> items;
        final boolean object;
        boolean first = true;

        Frame(Iterator<?> items, boolean object) {
            this.items = items;
            this.object = object;
        }
    }

    private static String write(Object root, int sizeHint) {
        StringBuilder out = new StringBuilder(sizeHint);
        Deque<Frame> open = new ArrayDeque<>();
        Object value = root;
        while (true) {
            if (value instanceof TreeMap) {
                out.append('{');
                open.push(new Frame(((TreeMap<?, ?>) value).entrySet().iterator(), true));
            } else if (value instanceof ArrayList) {
                out.append('[');
                open.push(new Frame(((ArrayList<?>) value).iterator(), false));
            } else {
                writeScalar(value, out);
            }
            value = null;
            while (value == null) {
                Frame frame = open.peek();
                if (frame == null) {
                    return out.toString();
                }
                if (!frame.items.hasNext()) {
                    out.append(frame.object ? '}' : ']');
                    open.pop();
                    continue;
                }
                if (!frame.first) {
                    out.append(',');
                }
                frame.first = false;
                Object item = frame.items.next();
                if (frame.object) {
                    Map.Entry<?, ?> member = (Map.Entry<?, ?>) item;
                    writeString((String) member.getKey(), out);
                    out.append(':');
                    value = member.getValue();
                } else {
                    value = item;
                }
            }
        }
    }

    private static void writeScalar(Object value, StringBuilder out) {
        if (value instanceof String) {
            writeString((String) value, out);
        } else if (value instanceof Double) {
            out.append(ReferenceEcmaScriptNumbers.format((Double) value));
        } else {
            out.append(((Literal) value).text);
        }
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** RFC 8785 section 3.2.2.2: the short escapes, lowercase <code>&#92;u00xx</code> for other controls. */
    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        int plainFrom = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                continue;
            }
            // copy unescaped runs in one go; most strings have no escapes at all
            out.append(s, plainFrom, i);
            plainFrom = i + 1;
            switch (c) {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\b':
                    out.append("\\b");
                    break;
                case '\f':
                    out.append("\\f");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                default:
                    out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        out.append(s, plainFrom, s.length()).append('"');
    }
}
