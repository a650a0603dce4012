package dev.idempotency.core.canonical;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import dev.idempotency.core.BodyCanonicalizer;
import dev.idempotency.core.internal.WithheldMessage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two JSON canonicalizers, {@link #SORTED_JSON} ({@link BodyCanonicalizer#sortedJson()}) and
 * {@link #JCS} ({@link BodyCanonicalizer#jcs()}): the body, decoded strictly, is read by
 * jackson-core's parser into a small tree whose object members are sorted, and written by its
 * generator.
 *
 * <p>Both accept exactly one JSON value (strict RFC 8259, Jackson's defaults: no comments, no
 * single quotes, no {@code NaN}, no leading zeros, no trailing commas) in well-formed UTF-8 without
 * a byte order mark, with no unpaired surrogate, within {@link #LIMITS}. Both sort object members by
 * the UTF-16 code units of their names, drop insignificant whitespace and write strings the RFC 8785
 * way. They differ in two things:
 * <ul>
 *   <li>numbers: {@code SORTED_JSON} keeps each literal exactly as written; {@code JCS} reads it as
 *       an IEEE-754 double and writes that as ECMAScript does ({@link EcmaScriptNumbers}), and a
 *       number beyond the double range makes the body non-canonicalizable;
 *   <li>duplicate member names: {@code SORTED_JSON} keeps them all, in the order they came (the
 *       sort is stable); for {@code JCS} they make the body non-canonicalizable.
 * </ul>
 * A body that is not canonicalizable is returned as it came. The method never throws and keeps no
 * state, so the shared instances are thread-safe.
 */
public final class JsonCanonicalizer implements BodyCanonicalizer {

    /** Numbers as written, duplicate names kept: different bodies stay different. */
    public static final JsonCanonicalizer SORTED_JSON = new JsonCanonicalizer(false);

    /** RFC 8785: numbers as ECMAScript doubles, duplicate names refused. */
    public static final JsonCanonicalizer JCS = new JsonCanonicalizer(true);

    /**
     * Jackson's default stream limits, pinned: nesting depth, digits per number, UTF-16 units per
     * member name and per string. Pinned rather than taken from {@code StreamReadConstraints.defaults()},
     * which an application may override globally and a Jackson release may change — either would
     * change which bodies are canonicalized, and so their fingerprints.
     */
    static final StreamReadConstraints LIMITS = StreamReadConstraints.builder()
            .maxNestingDepth(1_000)
            .maxNumberLength(1_000)
            .maxNameLength(50_000)
            .maxStringLength(20_000_000)
            .build();

    /**
     * Member names are untrusted input: not interned, and a body whose names collide in the shared,
     * randomly seeded symbol table is not refused (whether it collides depends on earlier bodies).
     * Doubles are read with Jackson's fast parser, which rounds as {@code Double.parseDouble} does.
     * Escapes are written {@code \u001f}, lower case, and characters beyond U+FFFF as their UTF-8,
     * as RFC 8785 wants; the writer's nesting limit is pinned to the reader's, for the reason
     * {@link #LIMITS} are.
     */
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
            .disable(JsonFactory.Feature.FAIL_ON_SYMBOL_HASH_OVERFLOW)
            .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
            .disable(JsonWriteFeature.WRITE_HEX_UPPER_CASE)
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .streamReadConstraints(LIMITS)
            .streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(1_000).build())
            .build();

    private static final Logger log = LoggerFactory.getLogger(JsonCanonicalizer.class);

    /** A number's or a literal's text, written as it is. */
    private record Raw(String text) {
    }

    private record Member(String name, Object value) {
    }

    /** An object's members, in canonical order. */
    private record Members(List<Member> sorted) {
    }

    private static final Comparator<Member> BY_NAME = Comparator.comparing(Member::name);

    /** RFC 8785 numbers and no duplicate names, or numbers as written and duplicates kept. */
    private final boolean jcs;

    private JsonCanonicalizer(boolean jcs) {
        this.jcs = jcs;
    }

    @Override
    public byte[] canonicalize(byte[] body, String contentType) {
        if (body == null || body.length == 0 || !BodyCanonicalizer.looksLikeJson(contentType)) {
            return body;
        }
        if (body.length >= 3 && body[0] == (byte) 0xEF && body[1] == (byte) 0xBB && body[2] == (byte) 0xBF) {
            return body; // a UTF-8 byte order mark, which a byte-source parser would skip
        }
        try {
            Object root = parse(decode(body));
            return root == null ? body : write(root, body.length);
        } catch (IOException notJson) {
            return body; // not UTF-8, malformed, or beyond the limits
        } catch (RuntimeException defect) {
            // Not expected, but the contract is never to fail a request: such a body is
            // fingerprinted raw — and logged, since its retries then only match byte-identical bodies.
            log.warn("Canonicalizer failed on a {}-byte body; fingerprinting it raw", body.length,
                    WithheldMessage.of(defect));
            return body;
        }
    }

    /**
     * Decoded here rather than by Jackson, which would detect UTF-16 and UTF-32, skip a byte order
     * mark, and let overlong forms, encoded surrogates and code points above U+10FFFF through;
     * Java's decoder, set to report errors, rejects them all (RFC 3629).
     */
    private static CharBuffer decode(byte[] body) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(body));
    }

    /**
     * The tree of the one JSON value in {@code text}, or {@code null} if it is not canonicalizable.
     * Nesting is kept on a heap stack, not the call stack, so the deepest body the limits allow
     * fits any thread.
     */
    private Object parse(CharBuffer text) throws IOException {
        try (JsonParser parser = JSON.createParser(text.array(), text.arrayOffset() + text.position(),
                text.remaining())) {
            Deque<Container> open = new ArrayDeque<>();
            for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                Object value;
                switch (token) {
                    case START_OBJECT, START_ARRAY -> {
                        open.push(new Container(token == JsonToken.START_OBJECT));
                        continue;
                    }
                    case FIELD_NAME -> {
                        open.peek().name = parser.currentName();
                        continue;
                    }
                    case END_OBJECT, END_ARRAY -> value = open.pop().finish(jcs);
                    default -> value = scalar(parser, token);
                }
                if (value == null) {
                    return null;
                }
                if (open.isEmpty()) {
                    return parser.nextToken() == null ? value : null; // "1 2": a second root value
                }
                open.peek().add(value);
            }
            return null; // whitespace only
        }
    }

    /** A string, a number or a literal; {@code null} if it is not canonicalizable. */
    private Object scalar(JsonParser parser, JsonToken token) throws IOException {
        switch (token) {
            case VALUE_STRING:
                // Jackson checks a string's length when it builds the String, not always before
                if (parser.getTextLength() > LIMITS.getMaxStringLength()) {
                    return null;
                }
                String text = parser.getText();
                return pairedSurrogates(text) ? text : null;
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                if (!jcs) {
                    return new Raw(parser.getText()); // the literal as written
                }
                double number = parser.getDoubleValue();
                return Double.isFinite(number) ? new Raw(EcmaScriptNumbers.format(number)) : null;
            case VALUE_TRUE:
            case VALUE_FALSE:
            case VALUE_NULL:
                return new Raw(parser.getText());
            default:
                return null; // no other token comes from JSON text
        }
    }

    /** An object or array being read. */
    private static final class Container {
        final boolean object;
        final List<Object> elements;
        final List<Member> members;
        String name;

        Container(boolean object) {
            this.object = object;
            this.elements = object ? null : new ArrayList<>();
            this.members = object ? new ArrayList<>() : null;
        }

        void add(Object value) {
            if (object) {
                members.add(new Member(name, value));
            } else {
                elements.add(value);
            }
        }

        /** The finished value; {@code null} for an object with an unpaired surrogate or, under JCS, a duplicate name. */
        Object finish(boolean rejectDuplicates) {
            if (!object) {
                return elements;
            }
            members.sort(BY_NAME); // stable, and String order is the order of UTF-16 code units
            for (int i = 0; i < members.size(); i++) {
                if (!pairedSurrogates(members.get(i).name())
                        || rejectDuplicates && i > 0 && members.get(i).name().equals(members.get(i - 1).name())) {
                    return null;
                }
            }
            return new Members(members);
        }
    }

    private static boolean pairedSurrogates(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    private static byte[] write(Object root, int expectedLength) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(expectedLength + 16);
        try (JsonGenerator generator = JSON.createGenerator(out)) {
            write(root, generator);
        }
        return out.toByteArray();
    }

    /** Depth-first, with the open containers' iterators on a heap stack. */
    private static void write(Object root, JsonGenerator out) throws IOException {
        Deque<Iterator<?>> open = new ArrayDeque<>();
        Object next = root;
        while (true) {
            if (next instanceof Members object) {
                out.writeStartObject();
                open.push(object.sorted().iterator());
            } else if (next instanceof List<?> array) {
                out.writeStartArray();
                open.push(array.iterator());
            } else if (next instanceof Raw raw) {
                out.writeRawValue(raw.text());
            } else if (next instanceof String string) {
                out.writeString(string);
            }
            next = null;
            while (next == null && !open.isEmpty()) {
                Iterator<?> items = open.peek();
                if (!items.hasNext()) {
                    open.pop();
                    if (out.getOutputContext().inArray()) {
                        out.writeEndArray();
                    } else {
                        out.writeEndObject();
                    }
                } else {
                    Object item = items.next();
                    if (item instanceof Member member) {
                        out.writeFieldName(member.name());
                        next = member.value();
                    } else {
                        next = item;
                    }
                }
            }
            if (next == null) {
                return;
            }
        }
    }
}
