package dev.idempotency.sql;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The schema check's verdicts, in the words every SQL store's {@code verifySchema()} shares: a
 * missing table, or the columns a table lacks (naming the caller migration when that is all it lacks).
 */
public final class SchemaCheck {

    private SchemaCheck() {
    }

    /** The failure for a table that does not exist; {@code cause} is the probe's own failure. */
    public static IllegalStateException missingTable(String tableLabel, SqlDialect dialect, Throwable cause) {
        return new IllegalStateException("Idempotency schema check failed: table " + tableLabel
                + " does not exist (" + dialect + "); apply the migrations in db/idempotency/ (see the"
                + " idempotency-jdbc README, Schema) or call createTableIfMissing()", cause);
    }

    /**
     * Passes when {@code present} (column names, any case; the result of the catalog's
     * {@code columnsProbe}) holds every column the statements use.
     *
     * @throws IllegalStateException naming the missing columns and the migration that adds them
     */
    public static void requireColumns(String tableLabel, SqlDialect dialect, Collection<String> present) {
        Set<String> names = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        names.addAll(present);
        List<String> missing = Records.COLUMNS.stream().filter(n -> !names.contains(n)).toList();
        if (missing.isEmpty()) {
            return;
        }
        String apply = missing.equals(List.of("caller"))
                ? "apply " + Ddl.callerScript(dialect) + ", which adds it to the primary key"
                : "apply the migrations in db/idempotency/";
        throw new IllegalStateException("Idempotency schema check failed: table " + tableLabel + " has no column"
                + (missing.size() == 1 ? " " : "s ") + String.join(", ", missing) + " (" + dialect
                + "); " + apply + " (see the idempotency-jdbc README, Schema)");
    }
}
