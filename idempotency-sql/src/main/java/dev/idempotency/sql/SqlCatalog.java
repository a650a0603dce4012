package dev.idempotency.sql;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every statement the SQL stores run on one table of one database, by name, as SQL text with
 * {@code :name} parameters ({@link Placeholders} renders them for a client). The text lives in
 * {@code dev/idempotency/sql/<dialect>.sql}, one {@code -- name: <name>} section a statement, with
 * {@code {table}} for the configured table; MySQL's file holds only what differs from MariaDB's.
 *
 * <p>The names: {@code find}, {@code readBack} (the key's row, whatever its state),
 * {@code complete}, {@code release}, {@code renew}, {@code purge}, {@code columnsProbe},
 * {@code columnsRowProbe}; PostgreSQL {@code reserveFresh}, {@code reserve} (and the variants
 * {@link #sql} names), {@code insertCompleted}, the atomic transaction's settings, {@code inFlightProbe},
 * {@code tableExists}, {@code tableState}, {@code ddlLock}; MariaDB/MySQL {@code upsert}, the purge
 * and DDL locks, the isolation and lock-wait statements; H2 {@code upsert} (a {@code MERGE}), its lock-wait statements. Values: the column
 * names, {@code now}, {@code limit}, {@code table_label} ({@link TableName#label()}) and those
 * named in each statement.
 */
public final class SqlCatalog {

    private static final Map<SqlDialect, Map<String, String>> TEXTS = new ConcurrentHashMap<>();

    /** The columns a variant of the PostgreSQL reservation adds to its won and lost rows. */
    enum Variant {
        PLAIN("", ""),
        /** When it writes the row, its own transaction commits without waiting for the WAL flush. */
        ASYNCHRONOUS_COMMIT(",\n    set_config('synchronous_commit', 'off', true) as \"commit_mode\"",
                ",\n    null as \"commit_mode\""),
        /** When it wins, the three shared advisory locks that tell a duplicate which body holds the key ({@link InFlightLocks}). */
        IN_FLIGHT_LOCKS("""
                ,
                    pg_advisory_xact_lock_shared(1229212488, :key_lock_high) as "key_lock_high",
                    pg_advisory_xact_lock_shared(1229212492, :key_lock_low) as "key_lock_low",
                    pg_advisory_xact_lock_shared(1229210180, :body_lock) as "body_lock\"""", """
                ,
                    cast(null as void) as "key_lock_high",
                    cast(null as void) as "key_lock_low",
                    cast(null as void) as "body_lock\"""");

        private final String won;
        private final String lost;

        Variant(String won, String lost) {
            this.won = won;
            this.lost = lost;
        }
    }

    private final SqlDialect dialect;
    private final TableName table;
    private final String quotedTable;
    private final Map<String, Placeholders.Sql> questionMarks = new ConcurrentHashMap<>();
    private final Map<String, Placeholders.Sql> numberedCasts = new ConcurrentHashMap<>();

    private SqlCatalog(SqlDialect dialect, TableName table) {
        this.dialect = dialect;
        this.table = table;
        this.quotedTable = table.quoted(dialect);
    }

    /** The statements on {@code tableName} ({@code table} or {@code schema.table}, checked by {@link TableName#of}). */
    public static SqlCatalog of(SqlDialect dialect, String tableName) {
        return new SqlCatalog(dialect, TableName.of(tableName));
    }

    public SqlDialect dialect() {
        return dialect;
    }

    public TableName table() {
        return table;
    }

    /**
     * The statement {@code name} on this table. Besides the catalog file's, PostgreSQL's reservation
     * variants: {@code reserveFreshAsynchronousCommit} and {@code reserveAsynchronousCommit} (when
     * they write the row, their transaction commits without waiting for the WAL flush),
     * {@code atomicReserveFresh} and {@code atomicReserve} (when they win, they take the
     * {@link InFlightLocks}); {@code atomicSettingsWithTenant} (the tenant for row-level security
     * too); for a client that sends several statements as one message, {@code completeAndCommit},
     * {@code releaseAndCommit} and any names joined by {@code ;} (their statements in that order).
     *
     * @throws IllegalArgumentException when the dialect has no such statement
     */
    public String sql(String name) {
        return switch (name) {
            case "reserveFresh", "reserve" -> reserve(name, Variant.PLAIN);
            case "reserveFreshAsynchronousCommit" -> reserve("reserveFresh", Variant.ASYNCHRONOUS_COMMIT);
            case "reserveAsynchronousCommit" -> reserve("reserve", Variant.ASYNCHRONOUS_COMMIT);
            case "atomicReserveFresh" -> reserve("reserveFresh", Variant.IN_FLIGHT_LOCKS);
            case "atomicReserve" -> reserve("reserve", Variant.IN_FLIGHT_LOCKS);
            case "atomicSettings" -> text(name).replace("{tenant}", "");
            case "atomicSettingsWithTenant" ->
                    text("atomicSettings").replace("{tenant}", ", set_config(:tenant_setting, :tenant, true)");
            // The COMMIT must not run when the UPDATE found no row: the UPDATE is wrapped in a query
            // that fails then (the cast of a non-constant text that is no integer); the server stops
            // at the first error and skips the COMMIT, leaving the transaction for the caller to roll back.
            case "completeAndCommit" -> "WITH completed AS (\n" + text("complete") + "\nRETURNING 1)\n"
                    + "SELECT CASE WHEN count(*) = 1 THEN 1 ELSE CAST('" + SqlErrors.RESERVATION_GONE
                    + " ' || count(*) AS integer) END AS completed FROM completed;\nCOMMIT";
            case "releaseAndCommit" -> text("release") + ";\nCOMMIT";
            default -> name.indexOf(';') < 0 ? text(name)
                    : String.join(";\n", java.util.Arrays.stream(name.split(";")).map(this::sql).toList());
        };
    }

    /** {@link #sql} with {@code ?} placeholders ({@link Placeholders#questionMarks}), rendered once. */
    public Placeholders.Sql questionMarks(String name) {
        return questionMarks.computeIfAbsent(name, n -> Placeholders.questionMarks(sql(n)));
    }

    /** {@link #sql} with {@code cast($n as <type>)} placeholders ({@link Placeholders#numberedCasts}), rendered once. */
    public Placeholders.Sql numberedCasts(String name) {
        return numberedCasts.computeIfAbsent(name, n -> Placeholders.numberedCasts(sql(n)));
    }

    private String text(String name) {
        String text = texts(dialect).get(name);
        if (text == null) {
            throw new IllegalArgumentException("No statement " + name + " for " + dialect);
        }
        return text.replace("{table}", quotedTable);
    }

    private String reserve(String name, Variant variant) {
        return text(name).replace("{won}", variant.won).replace("{lost}", variant.lost);
    }

    /**
     * PostgreSQL, for a client that bounds its statements on the server: the statements after this
     * one in the current transaction may run {@code millis} ms ({@code statement_timeout},
     * transaction-local), or less when the session's own limit is shorter; with {@code save}, the
     * session's limit is first kept for {@code restoreLockAndStatementTimeout}. No parameters.
     *
     * @throws IllegalArgumentException unless {@code millis} is positive
     */
    public String localStatementTimeout(long millis, boolean save) {
        String bound = text("localStatementTimeout").replace("{millis}", Long.toString(positive(millis)));
        return save ? text("saveStatementTimeout") + "; " + bound : bound;
    }

    /**
     * MariaDB: {@code sql} bounded to {@code millis} ms by the server, lock waits included
     * ({@code SET STATEMENT max_statement_time=… FOR}, which sets nothing on the session).
     *
     * @throws IllegalArgumentException unless {@code millis} is positive
     */
    public static String maxStatementTime(String sql, long millis) {
        positive(millis);
        return String.format(Locale.ROOT, "SET STATEMENT max_statement_time=%d.%03d FOR %s", millis / 1000,
                millis % 1000, sql);
    }

    /**
     * MariaDB, MySQL, H2: the session's lock wait set to {@code wait}, the session's own saved first
     * with {@code save} (for {@code restoreLockWait}). MariaDB and MySQL count whole seconds, rounded
     * up (MySQL's least is 1); H2 milliseconds.
     */
    public String lockWait(Duration wait, boolean save) {
        long millis = Math.max(0, Math.min(Integer.MAX_VALUE, wait.toMillis()));
        long value = switch (dialect) {
            case H2 -> millis;
            case MYSQL -> Math.max(1, (millis + 999) / 1000);
            default -> (millis + 999) / 1000;
        };
        return text(save ? "saveAndSetLockWait" : "setLockWait").replace("{wait}", Long.toString(value));
    }

    private static long positive(long millis) {
        if (millis <= 0) {
            throw new IllegalArgumentException("millis must be positive, was " + millis);
        }
        return millis;
    }

    private static Map<String, String> texts(SqlDialect dialect) {
        return TEXTS.computeIfAbsent(dialect, d -> {
            Map<String, String> texts = new HashMap<>();
            if (d == SqlDialect.MYSQL) {
                texts.putAll(parse(read(SqlDialect.MARIADB)));
            }
            texts.putAll(parse(read(d)));
            return Map.copyOf(texts);
        });
    }

    /** The sections of a catalog file: {@code -- name: x} opens one; other comment lines and the final {@code ;} are left out. */
    static Map<String, String> parse(String file) {
        Map<String, String> sections = new HashMap<>();
        String name = null;
        StringBuilder text = new StringBuilder();
        for (String line : (file + "\n-- name: \n").split("\n")) {
            if (line.startsWith("-- name: ")) {
                if (name != null) {
                    String sql = text.toString().strip();
                    sections.put(name, sql.endsWith(";") ? sql.substring(0, sql.length() - 1) : sql);
                }
                name = line.substring("-- name: ".length()).strip();
                text.setLength(0);
            } else if (!line.startsWith("--")) {
                text.append(line).append('\n');
            }
        }
        return sections;
    }

    private static String read(SqlDialect dialect) {
        try (InputStream in = SqlCatalog.class.getResourceAsStream(dialect.folder() + ".sql")) {
            if (in == null) {
                throw new IllegalStateException("Missing resource " + dialect.folder() + ".sql");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
