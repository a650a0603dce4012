package dev.idempotency.jdbc;

import org.jooq.SQLDialect;

/** The dialect families this store speaks, and what each can do in one statement. */
final class Dialects {

    private Dialects() {
    }

    static boolean isPostgres(SQLDialect dialect) {
        return dialect.family() == SQLDialect.POSTGRES;
    }

    static boolean isMySqlFamily(SQLDialect dialect) {
        return dialect.family() == SQLDialect.MYSQL || dialect.family() == SQLDialect.MARIADB;
    }

    static boolean isH2(SQLDialect dialect) {
        return dialect.family() == SQLDialect.H2;
    }

    static boolean isSupported(SQLDialect dialect) {
        return isPostgres(dialect) || isMySqlFamily(dialect) || isH2(dialect);
    }

    /** The folder under {@code db/idempotency/} that holds this dialect's DDL. */
    static String ddlFolder(SQLDialect dialect) {
        if (isPostgres(dialect)) {
            return "postgresql";
        }
        if (dialect.family() == SQLDialect.MARIADB) {
            return "mariadb";
        }
        if (dialect.family() == SQLDialect.MYSQL) {
            return "mysql";
        }
        if (isH2(dialect)) {
            return "h2";
        }
        throw new IllegalArgumentException("Unsupported dialect " + dialect);
    }
}
