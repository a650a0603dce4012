package dev.idempotency.jdbc.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.DSLContext;
import org.jooq.Name;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The shipped DDL scripts ({@code db/idempotency/<dialect>/V1__idempotency_keys.sql} and the
 * migrations after it), adapted to a configured table name and tenant setting, and run for
 * development set-ups.
 * <p>Internal, not API: may change without notice.
 */
public final class Ddl {

    public static final String DEFAULT_TABLE = "idempotency_keys";
    public static final String DEFAULT_TENANT_SETTING = "idempotency.tenant_id";

    /** The table name, optionally quoted, and any suffix that makes it a constraint/index/policy name. */
    private static final Pattern TABLE_NAME = Pattern.compile("(?<![\\w.])[\"`]?" + DEFAULT_TABLE + "(\\w*)[\"`]?");

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");
    private static final Pattern SETTING = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*\\.[A-Za-z_][A-Za-z0-9_]*");

    private Ddl() {
    }

    /** {@code tenantSetting} when it is a custom setting ({@code prefix.name}); for every PostgreSQL store. */
    public static String checkedTenantSetting(String tenantSetting) {
        Objects.requireNonNull(tenantSetting, "tenantSetting");
        if (!SETTING.matcher(tenantSetting).matches()) {
            throw new IllegalArgumentException("A custom setting looks like 'prefix.name', was '" + tenantSetting + "'");
        }
        return tenantSetting;
    }

    /** {@code table} or {@code schema.table}, each a plain SQL identifier. */
    public static Name parseTableName(String tableName) {
        Objects.requireNonNull(tableName, "tableName");
        String[] parts = tableName.split("\\.", -1);
        if (parts.length > 2) {
            throw new IllegalArgumentException("tableName must be 'table' or 'schema.table', was '" + tableName + "'");
        }
        for (String part : parts) {
            if (!IDENTIFIER.matcher(part).matches()) {
                throw new IllegalArgumentException("Not a plain SQL identifier: '" + part + "' in '" + tableName + "'");
            }
        }
        return DSL.name(parts);
    }

    /** The classpath resource holding the table's DDL for {@code dialect}. */
    public static String tableScript(SQLDialect dialect) {
        return "db/idempotency/" + Dialects.ddlFolder(dialect) + "/V1__idempotency_keys.sql";
    }

    /** The classpath resource adding the caller to the primary key of a V1 table for {@code dialect}. */
    static String callerScript(SQLDialect dialect) {
        return "db/idempotency/" + Dialects.ddlFolder(dialect) + "/V4__idempotency_keys_caller.sql";
    }

    /** The classpath resource setting the PostgreSQL table's fillfactor (a separate migration). */
    public static String fillfactorScript() {
        return "db/idempotency/postgresql/V3__idempotency_keys_fillfactor.sql";
    }

    /** The classpath resource holding the optional PostgreSQL row-level-security policy. */
    public static String rowLevelSecurityScript() {
        return "db/idempotency/postgresql-rls/V2__idempotency_keys_rls.sql";
    }

    /** The statements of {@code resource} for {@code table} and {@code tenantSetting}. */
    public static List<String> statements(DSLContext dsl, String resource, Name table, String tenantSetting) {
        String script = read(resource).replace(DEFAULT_TENANT_SETTING, tenantSetting);
        String renderedTable = dsl.render(DSL.table(table));
        String baseName = table.last();
        Matcher m = TABLE_NAME.matcher(script);
        StringBuilder adapted = new StringBuilder();
        while (m.find()) {
            String replacement = m.group(1).isEmpty() ? renderedTable : dsl.render(DSL.name(baseName + m.group(1)));
            m.appendReplacement(adapted, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(adapted);
        return split(adapted.toString());
    }

    /** What to run, decided on the connection once it holds the lock. */
    @FunctionalInterface
    public interface Plan {
        List<String> statements(Connection connection) throws SQLException;
    }

    /**
     * Runs the planned statements on one connection, in one transaction (as far as the database
     * keeps DDL in one); after {@code lock} ({@link Statements#ddlLock}) first when there is one,
     * so instances starting together do not race, and the plan sees what the one before did;
     * {@code unlock} ({@link Statements#ddlUnlock}), when there is one, runs last.
     */
    public static void run(Connection connection, String lock, String unlock, Plan plan) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (Statement s = connection.createStatement()) {
            try {
                if (lock != null) {
                    s.execute(lock);
                }
                for (String sql : plan.statements(connection)) {
                    s.execute(sql);
                }
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                if (unlock != null) {
                    try {
                        s.execute(unlock);
                    } catch (SQLException failedUnlock) {
                        e.addSuppressed(failedUnlock);
                    }
                }
                throw e;
            }
            if (unlock != null) {
                s.execute(unlock);
            }
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    /** Splits at semicolons that end a line, leaving out whole-line comments. */
    static List<String> split(String script) {
        StringBuilder code = new StringBuilder();
        for (String line : script.split("\n")) {
            if (!line.stripLeading().startsWith("--")) {
                code.append(line).append('\n');
            }
        }
        List<String> statements = new ArrayList<>();
        for (String statement : code.toString().split(";\\s*\n")) {
            if (!statement.isBlank()) {
                statements.add(statement.strip());
            }
        }
        return statements;
    }

    private static String read(String resource) {
        try (InputStream in = Ddl.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Missing resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
