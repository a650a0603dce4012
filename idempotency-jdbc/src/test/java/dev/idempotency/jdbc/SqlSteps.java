package dev.idempotency.jdbc;

import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.SqlDialect;
import java.util.ArrayList;
import java.util.List;

/**
 * Every step of the engine with the catalog's statements the JDBC store sends for it, in the order
 * the engine uses them: for {@code SQL.md} ({@link SqlCatalogTest}) and the query plans
 * ({@link QueryPlanTest}). Documentation only, so it lives with the tests; a new database adds its
 * case here.
 */
final class SqlSteps {

    /** One step of the engine and the statements (named SQL) it sends. */
    record Step(String name, List<String> statements) {
    }

    private SqlSteps() {
    }

    static List<Step> of(SqlCatalog sql) {
        List<Step> steps = new ArrayList<>(List.of(
                new Step("reserve", reserveStatements(sql)),
                new Step("replay lookup (find)", List.of(sql.sql("find"))),
                new Step("complete", List.of(sql.sql("complete"))),
                new Step("release", List.of(sql.sql("release"))),
                new Step("renew", List.of(sql.sql("renew"))),
                new Step("insertCompleted (optimistic mode)", sql.dialect() == SqlDialect.POSTGRES
                        ? List.of(sql.sql("insertCompleted")) : reserveStatements(sql)),
                new Step("purge one batch", List.of(sql.sql("purge")))));
        if (sql.dialect() == SqlDialect.POSTGRES) {
            steps.add(new Step("reserve: take-over, after the reserve above found a row that is not live",
                    List.of(sql.sql("reserve"))));
        }
        return List.copyOf(steps);
    }

    /** The statements a reservation sends when it wins at once (a lost one may add a primary-key read). */
    static List<String> reserveStatements(SqlCatalog sql) {
        return switch (sql.dialect()) {
            case POSTGRES -> List.of(sql.sql("reserveFresh"));
            case MYSQL -> List.of(sql.sql("upsert"), sql.sql("readBack"));
            default -> List.of(sql.sql("upsert"));
        };
    }
}
