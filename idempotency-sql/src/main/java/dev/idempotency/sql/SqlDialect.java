package dev.idempotency.sql;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

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

    /** {@code instant} as the table's time columns take it ({@link #localTime}). */
    public Object time(Instant instant) {
        return localTime ? LocalDateTime.ofInstant(instant, ZoneOffset.UTC) : OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    /** The class of {@link #time}'s values, for a {@code null}. */
    public Class<?> timeType() {
        return localTime ? LocalDateTime.class : OffsetDateTime.class;
    }

    /** {@code name} quoted as an identifier. */
    public String quote(String name) {
        return quote + name + quote;
    }
}
