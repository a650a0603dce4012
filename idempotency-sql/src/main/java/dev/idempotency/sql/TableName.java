package dev.idempotency.sql;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The idempotency table as configured: {@code table} or {@code schema.table}, each a plain SQL
 * identifier, quoted as given in every statement (so use lower case).
 *
 * @param label the name as given ({@code app.idempotency_keys}), for messages and lock names
 * @param parts its one or two identifiers
 */
public record TableName(String label, List<String> parts) {

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    public TableName {
        parts = List.copyOf(parts);
    }

    /**
     * {@code tableName} checked.
     *
     * @throws IllegalArgumentException unless it is {@code table} or {@code schema.table}, each a plain identifier
     */
    public static TableName of(String tableName) {
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
        return new TableName(tableName, List.of(parts));
    }

    /** The table's own name, without its schema. */
    public String base() {
        return parts.get(parts.size() - 1);
    }

    /** The name as SQL: each part quoted ({@code "app"."idempotency_keys"}). */
    public String quoted(SqlDialect dialect) {
        return String.join(".", parts.stream().map(dialect::quote).toList());
    }
}
