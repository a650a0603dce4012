package dev.idempotency.sql;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A catalog statement's {@code :name} parameters rendered as a client's placeholders, with the
 * parameter names in placeholder order and the Java type each is bound as (for a client that must
 * type a {@code null}): instants {@link Instant}, {@code response_status} and {@code format_version}
 * {@link Short}, {@code caller} and {@code response_body} {@code byte[]}, {@code limit} and the
 * advisory-lock values {@link Integer}, everything else {@link String}.
 */
public final class Placeholders {

    /**
     * A string literal, left as it is, or a parameter: a colon not after a colon (a PostgreSQL
     * {@code ::cast}), then a lower-case name.
     */
    private static final Pattern NAMED = Pattern.compile("'[^']*'|(?<!:):([a-z_][a-z0-9_]*)");

    private static final Map<String, Class<?>> TYPES = Map.ofEntries(
            Map.entry("caller", byte[].class), Map.entry("response_body", byte[].class),
            Map.entry("locked_until", Instant.class), Map.entry("expires_at", Instant.class),
            Map.entry("created_at", Instant.class), Map.entry("now", Instant.class),
            Map.entry("response_status", Short.class), Map.entry("format_version", Short.class),
            Map.entry("limit", Integer.class), Map.entry("key_lock_high", Integer.class),
            Map.entry("key_lock_low", Integer.class), Map.entry("body_lock", Integer.class));

    /** One statement as a client runs it: its text, the parameter of each placeholder and its Java type. */
    public record Sql(String text, List<String> parameters, List<Class<?>> types) {
        public Sql {
            parameters = List.copyOf(parameters);
            types = List.copyOf(types);
        }
    }

    private Placeholders() {
    }

    /** {@code :name} → {@code ?}, one placeholder per occurrence (JDBC, MariaDB's R2DBC driver). */
    public static Sql questionMarks(String namedSql) {
        List<String> names = new ArrayList<>();
        Matcher m = NAMED.matcher(namedSql);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            if (m.group(1) == null) {
                m.appendReplacement(out, Matcher.quoteReplacement(m.group()));
                continue;
            }
            names.add(m.group(1));
            m.appendReplacement(out, "?");
        }
        m.appendTail(out);
        return new Sql(out.toString(), names, names.stream().<Class<?>>map(Placeholders::typeOf).toList());
    }

    /**
     * {@code :name} → {@code cast($n as <its type>)}, one index per distinct name (the PostgreSQL
     * clients of Vert.x and R2DBC, which may send a parameter untyped: the server would then guess
     * {@code text} for {@code SELECT $9 AS response_status}).
     */
    public static Sql numberedCasts(String namedSql) {
        Map<String, Integer> index = new LinkedHashMap<>();
        Matcher m = NAMED.matcher(namedSql);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            if (name == null) {
                m.appendReplacement(out, Matcher.quoteReplacement(m.group()));
                continue;
            }
            int n = index.computeIfAbsent(name, k -> index.size() + 1);
            m.appendReplacement(out, Matcher.quoteReplacement("cast($" + n + " as " + postgresType(typeOf(name)) + ")"));
        }
        m.appendTail(out);
        List<String> names = new ArrayList<>(index.keySet());
        return new Sql(out.toString(), names, names.stream().<Class<?>>map(Placeholders::typeOf).toList());
    }

    /** The Java type parameter {@code name} is bound as. */
    public static Class<?> typeOf(String name) {
        return TYPES.getOrDefault(name, String.class);
    }

    private static String postgresType(Class<?> type) {
        if (type == Short.class) {
            return "int2";
        }
        if (type == Integer.class) {
            return "int4";
        }
        if (type == byte[].class) {
            return "bytea";
        }
        return type == Instant.class ? "timestamptz" : "text";
    }
}
