package dev.idempotency.core.canonical;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.BodyCanonicalizer;
import java.math.BigDecimal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * The rule of {@link BodyCanonicalizer#sortedJson()}: two documents share a canonical form exactly
 * when they hold the same values — member order (but for members of the same name), whitespace
 * and the spelling of strings may differ; a number's literal, a string, a name, a duplicate member
 * may not. Documents are generated as a model ({@link Json}), written out in random ways, and the
 * canonical form compared with one computed from the model alone.
 */
class CanonicalFormPropertiesTest {

    private static final BodyCanonicalizer SORTED = BodyCanonicalizer.sortedJson();

    // --- the model -------------------------------------------------------------------------------

    sealed interface Json permits Num, Str, Lit, Arr, Obj {
    }

    record Num(String literal) implements Json {
    }

    record Str(String value) implements Json {
    }

    record Lit(String word) implements Json {
    }

    record Arr(List<Json> items) implements Json {
    }

    record Obj(List<Member> members) implements Json {
    }

    record Member(String name, Json value) {
    }

    // --- properties ------------------------------------------------------------------------------

    @Property(tries = 400)
    void theCanonicalFormIsTheModelsWhateverTheSpelling(@ForAll("documents") Json document, @ForAll long spelling) {
        assertThat(canonical(write(document, new Random(spelling)))).isEqualTo(expected(document));
    }

    @Property(tries = 400)
    void documentsDifferingOnlyInMemberOrderWhitespaceOrEscapesShareTheirForm(@ForAll("documents") Json document,
                                                                             @ForAll long one, @ForAll long other) {
        String first = write(document, new Random(one));
        String second = write(document, new Random(other));
        assertThat(canonical(first)).as("%s%nand%n%s", first, second).isEqualTo(canonical(second));
    }

    @Property(tries = 400)
    void documentsDifferingInAValueOrNameNeverShareTheirForm(@ForAll("documents") Json document,
                                                            @ForAll("leaves") Json replacement, @ForAll("names") String name,
                                                            @ForAll int site, @ForAll boolean rename, @ForAll long spelling) {
        Json changed = rename ? renameMember(document, site, name) : replaceLeaf(document, site, replacement);
        Assume.that(!normalized(changed).equals(normalized(document)));
        Random random = new Random(spelling);
        String before = write(document, random);
        String after = write(changed, random);
        assertThat(canonical(before)).as("%s%nand%n%s", before, after).isNotEqualTo(canonical(after));
    }

    @Property(tries = 400)
    void numbersThatAreWrittenDifferentlyNeverShareTheirForm(@ForAll("documents") Json document,
                                                             @ForAll("numbers") String literal, @ForAll int site,
                                                             @ForAll long spelling) {
        Json changed = replaceNumber(document, site, literal);
        Assume.that(!changed.equals(document));
        Random random = new Random(spelling);
        assertThat(canonical(write(document, random))).isNotEqualTo(canonical(write(changed, random)));
    }

    @Property(tries = 300)
    void duplicateNamesInAnotherOrderOrCollapsedNeverShareTheirForm(@ForAll("names") String name,
                                                                    @ForAll("leaves") Json first,
                                                                    @ForAll("leaves") Json second,
                                                                    @ForAll long spelling) {
        Assume.that(!first.equals(second));
        Json both = new Obj(List.of(new Member(name, first), new Member(name, second)));
        Json swapped = new Obj(List.of(new Member(name, second), new Member(name, first)));
        Json lastOnly = new Obj(List.of(new Member(name, second)));
        Random random = new Random(spelling);
        byte[] canonical = canonical(write(both, random));
        assertThat(canonical).isNotEqualTo(canonical(write(swapped, random)))
                .isNotEqualTo(canonical(write(lastOnly, random)));
    }

    /** jcs() by contrast equates spellings of one double, and nothing else in that respect. */
    @Property(tries = 300)
    void jcsEquatesSpellingsOfOneDouble(@ForAll long bits) {
        double d = Double.longBitsToDouble(bits);
        Assume.that(Double.isFinite(d));
        BigDecimal exact = new BigDecimal(d);
        String plain = exact.toPlainString();
        String[] spellings = {Double.toString(d), exact.toString(), plain.length() < 900 ? plain : exact.toString(),
            exact.round(new java.math.MathContext(17)).toString()};
        byte[] expected = BodyCanonicalizer.jcs().canonicalize(("[" + spellings[0] + "]").getBytes(UTF_8), null);
        for (String spelling : spellings) {
            assertThat(BodyCanonicalizer.jcs().canonicalize(("[" + spelling.replace("+", "") + "]").getBytes(UTF_8), null))
                    .as(spelling).isEqualTo(expected);
        }
        assertThat(new String(expected, UTF_8)).isEqualTo("[" + EcmaScriptNumbers.format(d) + "]");
    }

    private static byte[] canonical(String document) {
        byte[] body = document.getBytes(UTF_8);
        byte[] canonical = SORTED.canonicalize(body, "application/json");
        assertThat(canonical).as("canonicalized, not returned raw: %s", document).isNotSameAs(body);
        return canonical;
    }

    // --- generators ------------------------------------------------------------------------------

    @Provide
    Arbitrary<Json> documents() {
        return value(3);
    }

    private Arbitrary<Json> value(int depth) {
        if (depth == 0) {
            return leaves();
        }
        Arbitrary<Json> arrays = value(depth - 1).list().ofMaxSize(4).map(Arr::new);
        Arbitrary<Json> objects = Combinators.combine(names(), value(depth - 1)).as(Member::new).list().ofMaxSize(5)
                .map(Obj::new);
        return Arbitraries.frequencyOf(Tuple.of(3, leaves()), Tuple.of(1, arrays), Tuple.of(2, objects));
    }

    @Provide
    Arbitrary<Json> leaves() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, numbers().map(Num::new)),
                Tuple.of(3, strings().map(Str::new)),
                Tuple.of(1, Arbitraries.of("true", "false", "null").map(Lit::new)));
    }

    /** Every form JSON allows: signs, zeros, big integers, long fractions, exponents either case. */
    @Provide
    Arbitrary<String> numbers() {
        Arbitrary<String> special = Arbitraries.of("0", "-0", "0.0", "-0.0", "1", "1.0", "1.00", "1e0", "1E0", "1e+0",
                "10e-1", "100", "1e2", "12345678901234567890", "12345678901234567891", "9007199254740992",
                "9007199254740993", "0.1", "0.10000000000000000001", "1e400", "-1e-400", "5e-324");
        Arbitrary<String> digits = Arbitraries.strings().withCharRange('0', '9').ofMinLength(0).ofMaxLength(25);
        Arbitrary<String> integer = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just("0")),
                Tuple.of(4, Combinators.combine(Arbitraries.integers().between(1, 9), digits).as((d, s) -> d + s)));
        Arbitrary<String> fraction = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just("")),
                Tuple.of(1, digits.filter(s -> !s.isEmpty()).map(s -> "." + s)));
        Arbitrary<String> exponent = Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.just("")),
                Tuple.of(1, Combinators.combine(Arbitraries.of("e", "E"), Arbitraries.of("", "+", "-"),
                        Arbitraries.strings().withCharRange('0', '9').ofMinLength(1).ofMaxLength(3))
                        .as((e, sign, n) -> e + sign + n)));
        Arbitrary<String> any = Combinators.combine(Arbitraries.of("", "-"), integer, fraction, exponent)
                .as((sign, i, f, e) -> sign + i + f + e);
        return Arbitraries.frequencyOf(Tuple.of(1, special), Tuple.of(3, any));
    }

    /** Any text without unpaired surrogates: controls, quotes, backslashes, all planes. */
    @Provide
    Arbitrary<String> strings() {
        Arbitrary<Integer> codePoint = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.integers().between(0x20, 0x7E)),
                Tuple.of(2, Arbitraries.of((int) '"', (int) '\\', (int) '/', 0, 8, 9, 10, 12, 13, 0x1F, 0x7F)),
                Tuple.of(1, Arbitraries.integers().between(0x80, 0x7FF)),
                Tuple.of(1, Arbitraries.integers().between(0x800, 0xD7FF)),
                Tuple.of(1, Arbitraries.integers().between(0xE000, 0xFFFF)),
                Tuple.of(1, Arbitraries.integers().between(0x10000, 0x10FFFF)));
        return codePoint.list().ofMaxSize(8)
                .map(points -> new String(points.stream().mapToInt(Integer::intValue).toArray(), 0, points.size()));
    }

    /** Few distinct names, so that objects often repeat one; some sort differently in UTF-16. */
    @Provide
    Arbitrary<String> names() {
        return Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.of("a", "b", "A", "ab", "", "a\u0000", "\u00e9", "\uFB01", "\uD83D\uDE00", "\"")),
                Tuple.of(1, strings()));
    }

    // --- writing a model out, in random ways -----------------------------------------------------

    private static final String[] SPACES = {"", "", " ", "\n", "\t", "\r\n  "};

    private static String write(Json json, Random random) {
        StringBuilder out = new StringBuilder();
        space(out, random);
        write(json, random, out);
        space(out, random);
        return out.toString();
    }

    private static void space(StringBuilder out, Random random) {
        out.append(SPACES[random.nextInt(SPACES.length)]);
    }

    private static void write(Json json, Random random, StringBuilder out) {
        if (json instanceof Num num) {
            out.append(num.literal());
        } else if (json instanceof Lit lit) {
            out.append(lit.word());
        } else if (json instanceof Str str) {
            writeString(str.value(), random, out);
        } else if (json instanceof Arr arr) {
            out.append('[');
            for (int i = 0; i < arr.items().size(); i++) {
                space(out, random);
                out.append(i == 0 ? "" : ",");
                space(out, random);
                write(arr.items().get(i), random, out);
            }
            space(out, random);
            out.append(']');
        } else {
            List<Member> members = shuffled(((Obj) json).members(), random);
            out.append('{');
            for (int i = 0; i < members.size(); i++) {
                space(out, random);
                out.append(i == 0 ? "" : ",");
                space(out, random);
                writeString(members.get(i).name(), random, out);
                space(out, random);
                out.append(':');
                space(out, random);
                write(members.get(i).value(), random, out);
            }
            space(out, random);
            out.append('}');
        }
    }

    /** A random order of the members, but members of one name still in the order they had. */
    private static List<Member> shuffled(List<Member> members, Random random) {
        List<Member> order = new ArrayList<>(members);
        Collections.shuffle(order, random);
        Map<String, Deque<Member>> byName = new HashMap<>();
        for (Member member : members) {
            byName.computeIfAbsent(member.name(), n -> new ArrayDeque<>()).add(member);
        }
        return order.stream().map(m -> byName.get(m.name()).poll()).collect(Collectors.toList());
    }

    /** Each character raw or escaped, in any of the ways JSON allows. */
    private static void writeString(String s, Random random, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i += Character.charCount(s.codePointAt(i))) {
            int c = s.codePointAt(i);
            String shortEscape = switch (c) {
                case '"' -> "\\\"";
                case '\\' -> "\\\\";
                case '/' -> "\\/";
                case '\b' -> "\\b";
                case '\f' -> "\\f";
                case '\n' -> "\\n";
                case '\r' -> "\\r";
                case '\t' -> "\\t";
                default -> null;
            };
            boolean mustEscape = c < 0x20 || c == '"' || c == '\\';
            int way = random.nextInt(3);
            if (!mustEscape && way == 0) {
                out.appendCodePoint(c);
            } else if (shortEscape != null && way != 2) {
                out.append(shortEscape);
            } else {
                for (char unit : Character.toChars(c)) { // a supplementary character: both halves
                    String hex = String.format("%04x", (int) unit);
                    out.append("\\u").append(random.nextBoolean() ? hex : hex.toUpperCase(java.util.Locale.ROOT));
                }
            }
        }
        out.append('"');
    }

    // --- what the canonical form must be, from the model alone -----------------------------------

    private static final Comparator<Member> BY_NAME = Comparator.comparing(Member::name); // UTF-16 units

    private static byte[] expected(Json json) {
        StringBuilder out = new StringBuilder();
        expected(json, out);
        return out.toString().getBytes(UTF_8);
    }

    private static void expected(Json json, StringBuilder out) {
        if (json instanceof Num num) {
            out.append(num.literal());
        } else if (json instanceof Lit lit) {
            out.append(lit.word());
        } else if (json instanceof Str str) {
            expectedString(str.value(), out);
        } else if (json instanceof Arr arr) {
            out.append('[');
            for (int i = 0; i < arr.items().size(); i++) {
                out.append(i == 0 ? "" : ",");
                expected(arr.items().get(i), out);
            }
            out.append(']');
        } else {
            List<Member> members = new ArrayList<>(((Obj) json).members());
            members.sort(BY_NAME); // stable: one name's members in their order
            out.append('{');
            for (int i = 0; i < members.size(); i++) {
                out.append(i == 0 ? "" : ",");
                expectedString(members.get(i).name(), out);
                out.append(':');
                expected(members.get(i).value(), out);
            }
            out.append('}');
        }
    }

    /** RFC 8785 section 3.2.2.2. */
    private static void expectedString(String s, StringBuilder out) {
        out.append('"');
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> out.append(c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
            }
        }
        out.append('"');
    }

    /** The model with every object's members in canonical order: equal exactly when the documents are. */
    private static Json normalized(Json json) {
        if (json instanceof Arr arr) {
            return new Arr(arr.items().stream().map(CanonicalFormPropertiesTest::normalized).toList());
        }
        if (json instanceof Obj obj) {
            List<Member> members = new ArrayList<>();
            for (Member m : obj.members()) {
                members.add(new Member(m.name(), normalized(m.value())));
            }
            members.sort(BY_NAME);
            return new Obj(members);
        }
        return json;
    }

    // --- changing one thing in a model -----------------------------------------------------------

    private static Json replaceLeaf(Json json, int site, Json replacement) {
        int leaves = count(json, j -> !(j instanceof Arr || j instanceof Obj));
        if (leaves == 0) {
            return json;
        }
        int[] countdown = {Math.floorMod(site, leaves)};
        return map(json, j -> !(j instanceof Arr || j instanceof Obj) && countdown[0]-- == 0 ? replacement : j);
    }

    private static Json replaceNumber(Json json, int site, String literal) {
        int numbers = count(json, j -> j instanceof Num);
        if (numbers == 0) {
            return json;
        }
        int[] countdown = {Math.floorMod(site, numbers)};
        return map(json, j -> j instanceof Num && countdown[0]-- == 0 ? new Num(literal) : j);
    }

    private static Json renameMember(Json json, int site, String name) {
        int members = memberCount(json);
        if (members == 0) {
            return json;
        }
        int[] countdown = {Math.floorMod(site, members)};
        return rename(json, countdown, name);
    }

    private static Json rename(Json json, int[] countdown, String name) {
        if (json instanceof Arr arr) {
            return new Arr(arr.items().stream().map(j -> rename(j, countdown, name)).toList());
        }
        if (json instanceof Obj obj) {
            List<Member> members = new ArrayList<>();
            for (Member m : obj.members()) {
                String newName = countdown[0]-- == 0 ? name : m.name();
                members.add(new Member(newName, rename(m.value(), countdown, name)));
            }
            return new Obj(members);
        }
        return json;
    }

    /** How many nodes {@code test} accepts. */
    private static int count(Json json, java.util.function.Predicate<Json> test) {
        int n = test.test(json) ? 1 : 0;
        if (json instanceof Arr arr) {
            for (Json item : arr.items()) {
                n += count(item, test);
            }
        } else if (json instanceof Obj obj) {
            for (Member m : obj.members()) {
                n += count(m.value(), test);
            }
        }
        return n;
    }

    /** How many members all objects have together. */
    private static int memberCount(Json json) {
        int n = 0;
        if (json instanceof Arr arr) {
            for (Json item : arr.items()) {
                n += memberCount(item);
            }
        } else if (json instanceof Obj obj) {
            for (Member m : obj.members()) {
                n += 1 + memberCount(m.value());
            }
        }
        return n;
    }

    private static Json map(Json json, java.util.function.UnaryOperator<Json> leaf) {
        if (json instanceof Arr arr) {
            return new Arr(arr.items().stream().map(j -> map(j, leaf)).toList());
        }
        if (json instanceof Obj obj) {
            return new Obj(obj.members().stream().map(m -> new Member(m.name(), map(m.value(), leaf))).toList());
        }
        return leaf.apply(json);
    }
}
