package dev.idempotency.sql;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shipped DDL scripts ({@code db/idempotency/<dialect>/V1__idempotency_keys.sql} and the
 * migrations after it), adapted to a configured table name and tenant setting, for the stores'
 * {@code createTableIfMissing}.
 */
public final class Ddl {

    public static final String DEFAULT_TABLE = "idempotency_keys";
    public static final String DEFAULT_TENANT_SETTING = "idempotency.tenant_id";

    /** The table name, optionally quoted, and any suffix that makes it a constraint/index/policy name. */
    private static final Pattern TABLE_NAME = Pattern.compile("(?<![\\w.])[\"`]?" + DEFAULT_TABLE + "(\\w*)[\"`]?");
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

    /** The classpath resource holding the table's DDL for {@code dialect}. */
    public static String tableScript(SqlDialect dialect) {
        return "db/idempotency/" + dialect.folder() + "/V1__idempotency_keys.sql";
    }

    /** The classpath resource adding the caller to the primary key of a V1 table for {@code dialect}. */
    public static String callerScript(SqlDialect dialect) {
        return "db/idempotency/" + dialect.folder() + "/V4__idempotency_keys_caller.sql";
    }

    /** The classpath resource setting the PostgreSQL table's fillfactor (a separate migration). */
    public static String fillfactorScript() {
        return "db/idempotency/postgresql/V3__idempotency_keys_fillfactor.sql";
    }

    /** The classpath resource holding the optional PostgreSQL row-level-security policy. */
    public static String rowLevelSecurityScript() {
        return "db/idempotency/postgresql-rls/V2__idempotency_keys_rls.sql";
    }

    /**
     * The scripts that create or upgrade the table as found: the table script (which leaves an
     * existing table as it is); unless {@code present}, on PostgreSQL the fillfactor that keeps
     * room for HOT completions (an existing table's is left as its owner set it); unless
     * {@code hasCaller}, the caller migration (which rebuilds the primary key, so only once); with
     * {@code rowLevelSecurity} the policy.
     */
    public static List<String> scripts(SqlDialect dialect, boolean present, boolean hasCaller, boolean rowLevelSecurity) {
        List<String> scripts = new ArrayList<>(List.of(tableScript(dialect)));
        if (!present && dialect == SqlDialect.POSTGRES) {
            scripts.add(fillfactorScript());
        }
        if (!hasCaller) {
            scripts.add(callerScript(dialect));
        }
        if (rowLevelSecurity) {
            scripts.add(rowLevelSecurityScript());
        }
        return scripts;
    }

    /** The statements of {@code scripts} for {@code table} and {@code tenantSetting}, in order. */
    public static List<String> statements(SqlDialect dialect, List<String> scripts, TableName table, String tenantSetting) {
        List<String> statements = new ArrayList<>();
        for (String script : scripts) {
            statements.addAll(statements(dialect, script, table, tenantSetting));
        }
        return statements;
    }

    /** The statements of {@code resource} for {@code table} and {@code tenantSetting}. */
    public static List<String> statements(SqlDialect dialect, String resource, TableName table, String tenantSetting) {
        String script = read(resource).replace(DEFAULT_TENANT_SETTING, tenantSetting);
        String renderedTable = table.quoted(dialect);
        Matcher m = TABLE_NAME.matcher(script);
        StringBuilder adapted = new StringBuilder();
        while (m.find()) {
            String replacement = m.group(1).isEmpty() ? renderedTable : dialect.quote(table.base() + m.group(1));
            m.appendReplacement(adapted, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(adapted);
        return split(adapted.toString());
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

    /** The text of the classpath resource {@code resource}. */
    static String read(String resource) {
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
