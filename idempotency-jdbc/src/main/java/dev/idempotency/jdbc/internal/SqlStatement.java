package dev.idempotency.jdbc.internal;

import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.sql.Placeholders;
import dev.idempotency.sql.Records;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

/**
 * One statement of the catalog ({@link dev.idempotency.sql.SqlCatalog}), rendered with {@code ?}
 * placeholders once, then executed any number of times through plain JDBC with its named
 * parameters bound by position; the JDBC driver reuses its server-side prepared statement.
 * <p>Internal, not API: may change without notice.
 */
final class SqlStatement {

    /** The SQL with {@code ?} placeholders. */
    final String sql;
    /** The SQL with {@code :name} placeholders, for reading. */
    final String namedSql;
    private final Placeholders.Sql rendered;
    /** Bind instants as UTC {@link LocalDateTime} (MariaDB/MySQL {@code DATETIME}) rather than {@link OffsetDateTime}. */
    final boolean localTime;

    SqlStatement(String namedSql, boolean localTime) {
        this.namedSql = namedSql;
        this.rendered = Placeholders.questionMarks(namedSql);
        this.sql = rendered.text();
        this.localTime = localTime;
    }

    /** Prepares the statement on {@code connection} and binds {@code values} by parameter name. */
    PreparedStatement prepare(Connection connection, Map<String, ?> values) throws SQLException {
        PreparedStatement ps = connection.prepareStatement(sql);
        try {
            for (int i = 0; i < rendered.parameters().size(); i++) {
                String name = rendered.parameters().get(i);
                if (!values.containsKey(name)) {
                    throw new IllegalArgumentException("No value for :" + name);
                }
                bind(ps, i + 1, rendered.types().get(i), values.get(name));
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    private void bind(PreparedStatement ps, int index, Class<?> type, Object value) throws SQLException {
        if (value == null) {
            ps.setNull(index, type == Instant.class ? (localTime ? Types.TIMESTAMP : Types.TIMESTAMP_WITH_TIMEZONE)
                    : type == Short.class ? Types.SMALLINT : type == byte[].class ? Types.VARBINARY : Types.VARCHAR);
        } else if (type == Instant.class) {
            ps.setObject(index, localTime ? LocalDateTime.ofInstant((Instant) value, ZoneOffset.UTC)
                    : OffsetDateTime.ofInstant((Instant) value, ZoneOffset.UTC));
        } else if (type == Short.class) {
            ps.setShort(index, ((Number) value).shortValue());
        } else if (type == Integer.class) {
            ps.setInt(index, ((Number) value).intValue());
        } else if (type == byte[].class) {
            ps.setBytes(index, (byte[]) value);
        } else {
            ps.setString(index, (String) value);
        }
    }

    /** The record of {@code key} the current row of {@code rs} (holding the record columns) describes. */
    IdempotencyRecord read(RecordKey key, ResultSet rs) throws SQLException {
        try {
            return Records.read(key, columns(rs));
        } catch (UncheckedSql e) {
            throw e.getCause();
        }
    }

    private Records.Columns columns(ResultSet rs) {
        return new Records.Columns() {
            @Override
            public String text(String column) {
                return get(() -> rs.getString(column));
            }

            @Override
            public Short int2(String column) {
                return get(() -> rs.getShort(column));
            }

            @Override
            public byte[] bytes(String column) {
                return get(() -> rs.getBytes(column));
            }

            @Override
            public Instant instant(String column) {
                return get(() -> {
                    if (localTime) {
                        LocalDateTime value = rs.getObject(column, LocalDateTime.class);
                        return value == null ? null : value.toInstant(ZoneOffset.UTC);
                    }
                    OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
                    return value == null ? null : value.toInstant();
                });
            }
        };
    }

    private interface Read<T> {
        T get() throws SQLException;
    }

    /** A column read; a failure surfaces as {@link UncheckedSql}, which {@link #read} unwraps. */
    private static <T> T get(Read<T> read) {
        try {
            return read.get();
        } catch (SQLException e) {
            throw new UncheckedSql(e);
        }
    }

    /** A column read's {@link SQLException}, through {@link Records.Columns}. */
    private static final class UncheckedSql extends RuntimeException {
        UncheckedSql(SQLException cause) {
            super(cause);
        }

        @Override
        public synchronized SQLException getCause() {
            return (SQLException) super.getCause();
        }
    }

    /** The parameter names, in placeholder order. */
    List<String> parameters() {
        return rendered.parameters();
    }

    @Override
    public String toString() {
        return namedSql;
    }
}
