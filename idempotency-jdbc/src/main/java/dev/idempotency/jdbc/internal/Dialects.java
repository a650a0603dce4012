package dev.idempotency.jdbc.internal;

import dev.idempotency.sql.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.jooq.tools.jdbc.JDBCUtils;

/**
 * Which jOOQ {@link SQLDialect} is which database of idempotency-sql's catalog ({@link SqlDialect}),
 * and the detection of a {@link DataSource}'s. Adding a database means its catalog and DDL there,
 * and its lines here.
 * <p>Internal, not API: may change without notice.
 */
public final class Dialects {

    private Dialects() {
    }

    public static boolean isSupported(SQLDialect dialect) {
        return sqlDialectOrNull(dialect) != null;
    }

    /** The catalog's name for {@code dialect}. */
    public static SqlDialect sqlDialect(SQLDialect dialect) {
        SqlDialect sqlDialect = sqlDialectOrNull(dialect);
        if (sqlDialect == null) {
            throw unsupported(dialect);
        }
        return sqlDialect;
    }

    private static SqlDialect sqlDialectOrNull(SQLDialect dialect) {
        switch (dialect.family()) {
            case POSTGRES:
                return SqlDialect.POSTGRES;
            case MARIADB:
                return SqlDialect.MARIADB;
            case MYSQL:
                return SqlDialect.MYSQL;
            case H2:
                return SqlDialect.H2;
            default:
                return null;
        }
    }

    /** The dialect of {@code dataSource}'s database, from one connection's metadata. */
    public static SQLDialect detect(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            SQLDialect detected = JDBCUtils.dialect(connection);
            // MariaDB reached through MySQL's driver reports a MySQL URL; its SQL differs (RETURNING, no row alias).
            if (detected.family() == SQLDialect.MYSQL && String.valueOf(
                    connection.getMetaData().getDatabaseProductVersion()).toLowerCase(Locale.ROOT).contains("mariadb")) {
                return SQLDialect.MARIADB;
            }
            return detected;
        } catch (SQLException e) {
            throw SqlFailures.translate(e, "(dialect detection)");
        }
    }

    private static IllegalArgumentException unsupported(SQLDialect dialect) {
        return new IllegalArgumentException("Unsupported dialect " + dialect + "; use POSTGRES, MARIADB, MYSQL or H2");
    }
}
