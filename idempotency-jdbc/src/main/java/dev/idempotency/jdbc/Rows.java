package dev.idempotency.jdbc;

import dev.idempotency.sql.Placeholders;
import dev.idempotency.sql.SqlDialect;
import dev.idempotency.sql.SqlSession;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Values bound into a statement and rows read out, through JDBC: times as {@link SqlDialect#time} binds them. */
final class Rows {

    private Rows() {
    }

    /** {@code sql} prepared on {@code c} with {@code values} bound by parameter name, under a query timeout (0: none). */
    static PreparedStatement prepare(Connection c, Placeholders.Sql sql, SqlDialect dialect, Map<String, ?> values,
                                     int timeoutSeconds) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql.text());
        try {
            if (timeoutSeconds > 0) {
                ps.setQueryTimeout(timeoutSeconds);
            }
            for (int i = 0; i < sql.parameters().size(); i++) {
                String parameter = sql.parameters().get(i);
                if (!values.containsKey(parameter)) {
                    throw new IllegalArgumentException("No value for :" + parameter);
                }
                Class<?> type = sql.types().get(i);
                Object value = values.get(parameter);
                if (value == null) {
                    ps.setNull(i + 1, type == Instant.class
                            ? (dialect.localTime() ? Types.TIMESTAMP : Types.TIMESTAMP_WITH_TIMEZONE)
                            : type == Short.class ? Types.SMALLINT : type == byte[].class ? Types.VARBINARY
                            : Types.VARCHAR);
                } else {
                    ps.setObject(i + 1, value instanceof Instant instant ? dialect.time(instant) : value);
                }
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    /** Each row of {@code rs} mapped while it is readable. */
    static <T> List<T> read(ResultSet rs, SqlDialect dialect, Function<SqlSession.Row, T> mapping) throws SQLException {
        SqlSession.Row row = new SqlSession.Row() {
            @Override
            public <V> V get(String column, Class<V> type) {
                return column(() -> rs.getObject(column, type));
            }

            @Override
            public boolean localTime() {
                return dialect.localTime();
            }

            @Override
            public Short int2(String column) {
                return column(() -> rs.getShort(column));
            }

            @Override
            public byte[] bytes(String column) {
                return column(() -> rs.getBytes(column));
            }
        };
        List<T> rows = new ArrayList<>();
        while (rs.next()) {
            rows.add(mapping.apply(row));
        }
        return rows;
    }

    private static <T> T column(JdbcSession.Work<T> read) {
        try {
            return read.run();
        } catch (SQLException e) {
            throw new ColumnFailure(e);
        }
    }

    /** A column read's failure, through {@link SqlSession.Row}, which {@link JdbcSession#call} unwraps. */
    static final class ColumnFailure extends RuntimeException {
        ColumnFailure(SQLException cause) {
            super(cause);
        }
    }
}
