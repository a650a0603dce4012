package dev.idempotency.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.Converter;
import org.jooq.DSLContext;
import org.jooq.DataType;
import org.jooq.Param;
import org.jooq.Query;

/**
 * One statement, built with jOOQ's DSL and rendered for its dialect once, then executed any number
 * of times through plain JDBC with its named parameters bound by position.
 *
 * <p>Why not let jOOQ render each call: the reservation statement is large (a CTE with an upsert
 * and a union), and rendering it took about half a millisecond of CPU per call, more than the
 * database spent executing it. Rendering once keeps jOOQ's dialect knowledge and drops that cost;
 * the JDBC driver then reuses its server-side prepared statement.
 * <p>Internal, not API: may change without notice.
 */
final class SqlStatement {

    /** A named parameter as jOOQ renders it ({@code :name}); identifiers and literals here never hold a colon. */
    private static final Pattern NAMED = Pattern.compile(":([a-z_]+)");
    /** How jOOQ renders an anonymous bind value among named ones. */
    private static final Pattern UNNAMED = Pattern.compile(":[0-9]");

    /** The SQL with {@code ?} placeholders. */
    final String sql;
    /** The SQL with {@code :name} placeholders, for reading. */
    final String namedSql;
    private final String[] names;
    /** The type each parameter is bound as. */
    private final Class<?>[] types;
    /** Per parameter, the converter from the value given to the value bound; {@code null}: bound as given. */
    private final Converter<?, ?>[] converters;
    private final boolean localTime;

    private SqlStatement(String sql, String namedSql, String[] names, Class<?>[] types, Converter<?, ?>[] converters,
                         boolean localTime) {
        this.sql = sql;
        this.namedSql = namedSql;
        this.names = names;
        this.types = types;
        this.converters = converters;
        this.localTime = localTime;
    }

    /**
     * Renders {@code query}, whose every bind value is a named {@link Param}. A parameter of a
     * converted type other than {@link Instant} (the caller: hex digits, stored as bytes) is given
     * in its Java type and bound through the converter as the column's type.
     *
     * @param localTime bind instants as UTC {@link LocalDateTime} (MariaDB/MySQL {@code DATETIME})
     *                  rather than {@link OffsetDateTime}
     */
    static SqlStatement of(DSLContext ctx, Query query, boolean localTime) {
        String named = ctx.renderNamedParams(query);
        if (UNNAMED.matcher(named).find()) {
            throw new IllegalStateException("Every bind value must be a named parameter: " + named);
        }
        Map<String, Param<?>> params = ctx.extractParams(query);
        List<String> names = new ArrayList<>();
        List<Class<?>> types = new ArrayList<>();
        List<Converter<?, ?>> converters = new ArrayList<>();
        Matcher m = NAMED.matcher(named);
        StringBuilder indexed = new StringBuilder();
        while (m.find()) {
            Param<?> param = params.get(m.group(1));
            if (param == null) {
                throw new IllegalStateException("Not a parameter of the query: " + m.group() + " in " + named);
            }
            DataType<?> type = param.getDataType();
            boolean converted = type.getType() != Instant.class && type.getFromType() != type.getType();
            names.add(m.group(1));
            types.add(converted ? type.getFromType() : type.getType());
            converters.add(converted ? type.getConverter() : null);
            m.appendReplacement(indexed, "?");
        }
        m.appendTail(indexed);
        return new SqlStatement(indexed.toString(), named, names.toArray(String[]::new), types.toArray(Class[]::new),
                converters.toArray(Converter[]::new), localTime);
    }

    /**
     * {@code before<this statement>after}, concatenated as they are (no separator), with the same
     * parameters: for wrapping a rendered statement, such as in a common table expression.
     * {@code before} and {@code after} hold no parameters.
     */
    SqlStatement wrapped(String before, String after) {
        return new SqlStatement(before + sql + after, before + namedSql + after, names, types, converters, localTime);
    }

    /**
     * {@code <this statement>; after} as one string, which pgJDBC sends as one message and answers
     * in one round trip. {@code after} holds no parameters.
     */
    SqlStatement followedBy(String after) {
        return new SqlStatement(sql + ";\n" + after, namedSql + ";\n" + after, names, types, converters, localTime);
    }

    /**
     * {@code before; <this statement>; after} as one string, which pgJDBC sends as one message and
     * answers in one round trip. {@code before} and {@code after} may hold {@code :name} parameters,
     * bound as strings.
     */
    SqlStatement between(String before, String after) {
        List<String> allNames = new ArrayList<>();
        List<Class<?>> allTypes = new ArrayList<>();
        String indexedBefore = stringParams(before, allNames, allTypes);
        int first = allNames.size();
        allNames.addAll(List.of(names));
        allTypes.addAll(List.of(types));
        String indexedAfter = stringParams(after, allNames, allTypes);
        Converter<?, ?>[] allConverters = new Converter<?, ?>[allNames.size()];
        System.arraycopy(converters, 0, allConverters, first, converters.length);
        return new SqlStatement(indexedBefore + ";\n" + sql + ";\n" + indexedAfter,
                before + ";\n" + namedSql + ";\n" + after, allNames.toArray(String[]::new),
                allTypes.toArray(Class[]::new), allConverters, localTime);
    }

    private static String stringParams(String named, List<String> names, List<Class<?>> types) {
        Matcher m = NAMED.matcher(named);
        StringBuilder indexed = new StringBuilder();
        while (m.find()) {
            names.add(m.group(1));
            types.add(String.class);
            m.appendReplacement(indexed, "?");
        }
        m.appendTail(indexed);
        return indexed.toString();
    }

    /** Prepares the statement on {@code connection} and binds {@code values} by parameter name. */
    PreparedStatement prepare(Connection connection, Map<String, ?> values) throws SQLException {
        PreparedStatement ps = connection.prepareStatement(sql);
        try {
            for (int i = 0; i < names.length; i++) {
                if (!values.containsKey(names[i])) {
                    throw new IllegalArgumentException("No value for :" + names[i]);
                }
                bind(ps, i + 1, types[i], bound(converters[i], values.get(names[i])));
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    @SuppressWarnings("unchecked")
    private static Object bound(Converter<?, ?> converter, Object value) {
        return converter == null || value == null ? value : ((Converter<Object, Object>) converter).to(value);
    }

    private void bind(PreparedStatement ps, int index, Class<?> type, Object value) throws SQLException {
        if (type == Instant.class) {
            if (value == null) {
                ps.setNull(index, localTime ? Types.TIMESTAMP : Types.TIMESTAMP_WITH_TIMEZONE);
            } else if (localTime) {
                ps.setObject(index, LocalDateTime.ofInstant((Instant) value, ZoneOffset.UTC));
            } else {
                ps.setObject(index, OffsetDateTime.ofInstant((Instant) value, ZoneOffset.UTC));
            }
        } else if (type == String.class) {
            if (value == null) {
                ps.setNull(index, Types.VARCHAR);
            } else {
                ps.setString(index, (String) value);
            }
        } else if (type == Short.class) {
            if (value == null) {
                ps.setNull(index, Types.SMALLINT);
            } else {
                ps.setShort(index, ((Number) value).shortValue());
            }
        } else if (type == Integer.class) {
            ps.setInt(index, ((Number) value).intValue());
        } else if (type == byte[].class) {
            if (value == null) {
                ps.setNull(index, Types.VARBINARY);
            } else {
                ps.setBytes(index, (byte[]) value);
            }
        } else {
            throw new IllegalStateException("Unexpected parameter type " + type.getName());
        }
    }

    /** The parameter names, in placeholder order. */
    List<String> parameters() {
        return List.of(names);
    }

    /** The Java type each parameter is bound as, in placeholder order ({@code byte[]} for the caller). */
    List<Class<?>> parameterTypes() {
        return List.of(types);
    }

    /** The Java type parameter {@code :name} is bound as. */
    Class<?> typeOf(String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                return types[i];
            }
        }
        throw new IllegalArgumentException("No parameter :" + name + " in " + namedSql);
    }

    @Override
    public String toString() {
        return namedSql;
    }
}
