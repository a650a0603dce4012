package dev.idempotency.jdbc.internal;

import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.jooq.tools.jdbc.JDBCUtils;

/**
 * Which database class speaks which jOOQ dialect: the one place that maps a {@link SQLDialect} to
 * a database and its catalog ({@link SqlDialect}). Everything a database does its own way lives in its class — {@link PostgresStatements},
 * {@link MySqlStatements} (MariaDB and MySQL), {@link H2Statements}: its statements, the set-up of
 * the atomic mode's transaction ({@link Statements#atomicSession}), what it can do besides
 * ({@link Statements#supportsRowLevelSecurity}, {@link Statements#supportsAsynchronousReservationCommit})
 * and the extras of its DDL ({@link Statements#tableScripts}, {@link Statements#ddlLock}) — and in
 * idempotency-sql's catalog and DDL folder. Adding a database means its class, its statements and
 * DDL there, and its lines here.
 * <p>Internal, not API: may change without notice.
 */
public final class Dialects {

    private Dialects() {
    }

    public static boolean isSupported(SQLDialect dialect) {
        return sqlDialectOrNull(dialect) != null;
    }

    /** The database class for {@code dialect}, its statements on {@code tableName}. */
    public static Statements statements(SQLDialect dialect, String tableName) {
        SqlCatalog catalog = SqlCatalog.of(sqlDialect(dialect), tableName);
        switch (dialect.family()) {
            case POSTGRES:
                return new PostgresStatements(catalog);
            case MARIADB:
                return new MySqlStatements(catalog, true);
            case MYSQL:
                return new MySqlStatements(catalog, false);
            case H2:
                return new H2Statements(catalog);
            default:
                throw unsupported(dialect);
        }
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
