package dev.idempotency.jdbc.internal;

import org.jooq.SQLDialect;

/**
 * Which database class speaks which jOOQ dialect: the one place that maps a {@link SQLDialect} to
 * a database. Everything a database does its own way lives in its class — {@link PostgresStatements},
 * {@link MySqlStatements} (MariaDB and MySQL), {@link H2Statements}: its statements, the set-up of
 * the atomic mode's transaction ({@link Statements#atomicSession}), what it can do besides
 * ({@link Statements#supportsRowLevelSecurity}, {@link Statements#supportsAsynchronousReservationCommit})
 * and the extras of its DDL ({@link Statements#tableScripts}, {@link Statements#ddlLock}) — and in
 * its DDL folder under {@code db/idempotency/}. Adding a database means its class, its DDL, and
 * its lines here.
 * <p>Internal, not API: may change without notice.
 */
public final class Dialects {

    private Dialects() {
    }

    public static boolean isSupported(SQLDialect dialect) {
        return ddlFolderOrNull(dialect) != null;
    }

    /** The database class for {@code dialect}, its statements built for {@code table}. */
    public static Statements statements(SQLDialect dialect, IdempotencyTable table) {
        return statements(dialect, table, false);
    }

    /** @param formatted render multi-line SQL, for reading rather than running */
    static Statements statements(SQLDialect dialect, IdempotencyTable table, boolean formatted) {
        switch (dialect.family()) {
            case POSTGRES:
                return new PostgresStatements(table, dialect, formatted);
            case MARIADB:
                return new MySqlStatements(table, dialect, formatted, true);
            case MYSQL:
                return new MySqlStatements(table, dialect, formatted, false);
            case H2:
                return new H2Statements(table, dialect, formatted);
            default:
                throw unsupported(dialect);
        }
    }

    /** The folder under {@code db/idempotency/} that holds this dialect's DDL. */
    static String ddlFolder(SQLDialect dialect) {
        String folder = ddlFolderOrNull(dialect);
        if (folder == null) {
            throw unsupported(dialect);
        }
        return folder;
    }

    /**
     * Whether the table's instants are {@code DATETIME} columns, bound as UTC {@code LocalDateTime}
     * (MariaDB, MySQL), rather than {@code TIMESTAMP WITH TIME ZONE}.
     */
    static boolean bindsLocalTime(SQLDialect dialect) {
        return dialect.family() == SQLDialect.MARIADB || dialect.family() == SQLDialect.MYSQL;
    }

    private static String ddlFolderOrNull(SQLDialect dialect) {
        switch (dialect.family()) {
            case POSTGRES:
                return "postgresql";
            case MARIADB:
                return "mariadb";
            case MYSQL:
                return "mysql";
            case H2:
                return "h2";
            default:
                return null;
        }
    }

    private static IllegalArgumentException unsupported(SQLDialect dialect) {
        return new IllegalArgumentException("Unsupported dialect " + dialect + "; use POSTGRES, MARIADB, MYSQL or H2");
    }
}
