package dev.idempotency.jdbc.internal;

import dev.idempotency.jdbc.JdbcStore;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.jooq.SQLDialect;

/**
 * The schema check's verdicts, in the words {@link JdbcStore#verifySchema()} and the reactive
 * store ({@link PostgresSql#requireColumns}) share: a missing table, or the columns a table lacks
 * (naming the caller migration when that is all it lacks).
 * <p>Internal, not API: may change without notice.
 */
public final class SchemaCheck {

    private SchemaCheck() {
    }

    /** A dialect's verdicts for a store that runs the check itself ({@link PostgresSql}, {@link MariaDbSql}). */
    public interface Verdicts {
        /** The failure for a table that does not exist, in {@link JdbcStore#verifySchema()}'s words. */
        IllegalStateException missingTable(String tableLabel, Throwable cause);

        /**
         * Passes when {@code present} (column names, any case) holds every column the statements use.
         *
         * @throws IllegalStateException naming the missing columns and the migration that adds them
         */
        void requireColumns(String tableLabel, Collection<String> present);
    }

    /** The failure for a table that does not exist; {@code cause} is the probe's own failure. */
    public static IllegalStateException missingTable(String tableLabel, SQLDialect dialect, Throwable cause) {
        return new IllegalStateException("Idempotency schema check failed: table " + tableLabel
                + " does not exist (" + dialect + "); apply the migrations in db/idempotency/ (see the"
                + " idempotency-jdbc README, Schema) or call createTableIfMissing()", cause);
    }

    /**
     * Passes when {@code present} (column names, any case) holds every column of {@code table}.
     *
     * @throws IllegalStateException naming the missing columns and the migration that adds them
     */
    public static void requireColumns(IdempotencyTable table, String tableLabel, SQLDialect dialect,
                               Collection<String> present) {
        Set<String> names = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        names.addAll(present);
        List<String> missing = table.columns.stream().map(f -> f.getName()).filter(n -> !names.contains(n)).toList();
        if (missing.isEmpty()) {
            return;
        }
        String apply = missing.equals(List.of(table.caller.getName()))
                ? "apply " + Ddl.callerScript(dialect) + ", which adds it to the primary key"
                : "apply the migrations in db/idempotency/";
        throw new IllegalStateException("Idempotency schema check failed: table " + tableLabel + " has no column"
                + (missing.size() == 1 ? " " : "s ") + String.join(", ", missing) + " (" + dialect
                + "); " + apply + " (see the idempotency-jdbc README, Schema)");
    }
}
