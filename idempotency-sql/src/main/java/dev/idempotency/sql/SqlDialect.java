package dev.idempotency.sql;

/**
 * The databases the SQL stores speak, each with its statements ({@code dev/idempotency/sql/<folder>.sql})
 * and its DDL folder under {@code db/idempotency/}. Named as jOOQ names their dialects, which the
 * messages repeat.
 */
public enum SqlDialect {
    POSTGRES("postgresql", '"', false),
    MARIADB("mariadb", '`', true),
    /** MariaDB's statements but the upsert, which cannot return the row ({@code mysql.sql}). */
    MYSQL("mysql", '`', true),
    H2("h2", '"', false);

    private final String folder;
    private final char quote;
    private final boolean localTime;

    SqlDialect(String folder, char quote, boolean localTime) {
        this.folder = folder;
        this.quote = quote;
        this.localTime = localTime;
    }

    /** The folder under {@code db/idempotency/} that holds the DDL, and the name of the statements' resource. */
    public String folder() {
        return folder;
    }

    /**
     * Whether the table's instants are {@code DATETIME(6)} columns holding UTC, bound as
     * {@code LocalDateTime} (MariaDB, MySQL: no zoned type with a range past 2038), rather than
     * {@code TIMESTAMP WITH TIME ZONE}.
     */
    public boolean localTime() {
        return localTime;
    }

    /** {@code name} quoted as an identifier. */
    public String quote(String name) {
        return quote + name + quote;
    }
}
