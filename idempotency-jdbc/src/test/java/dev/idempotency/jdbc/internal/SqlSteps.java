package dev.idempotency.jdbc.internal;

import dev.idempotency.jdbc.internal.H2Statements;
import java.util.ArrayList;
import java.util.List;

/**
 * Every step of the engine with the statements a database's class sends for it, in the order the
 * engine uses them: for {@code SQL.md} ({@link SqlCatalogTest}) and the query plans
 * ({@link QueryPlanTest}). Documentation only, so it lives with the tests; a new database adds its
 * case here.
 */
final class SqlSteps {

    /** One step of the engine and the statements it sends. */
    record Step(String name, List<SqlStatement> statements) {
    }

    private SqlSteps() {
    }

    static List<Step> of(Statements sql) {
        List<Step> steps = new ArrayList<>(List.of(
                new Step("reserve", reserveStatements(sql)),
                new Step("replay lookup (find)", List.of(sql.find)),
                new Step("complete", List.of(sql.complete)),
                new Step("release", List.of(sql.release)),
                new Step("renew", List.of(sql.renew)),
                new Step("insertCompleted (optimistic mode)", insertCompletedStatements(sql)),
                new Step("purge one batch", List.of(sql.purgeStatement()))));
        if (sql instanceof PostgresStatements postgres) {
            steps.add(new Step("reserve: take-over, after the reserve above found a row that is not live",
                    List.of(postgres.reserve)));
        }
        return List.copyOf(steps);
    }

    /** The statements a reservation sends when it wins at once (a lost one may add a primary-key read). */
    static List<SqlStatement> reserveStatements(Statements sql) {
        if (sql instanceof PostgresStatements postgres) {
            return List.of(postgres.reserveFresh);
        }
        if (sql instanceof MySqlStatements mysql) {
            return mysql.returning ? List.of(mysql.upsert) : List.of(mysql.upsert, mysql.readBack);
        }
        if (sql instanceof H2Statements h2) {
            return List.of(h2.merge);
        }
        throw new IllegalArgumentException("No documented steps for " + sql.getClass().getName());
    }

    /** The statements {@link Statements#insertCompleted} sends. */
    static List<SqlStatement> insertCompletedStatements(Statements sql) {
        if (sql instanceof PostgresStatements postgres) {
            return List.of(postgres.insertCompleted);
        }
        return reserveStatements(sql); // the same upsert or merge
    }

    /** The set-up + reserve + restore composites of the atomic mode on PostgreSQL. */
    static List<SqlStatement> atomicStatements(PostgresStatements postgres) {
        return List.of(postgres.atomicBegin, postgres.atomicBeginWithTenant, postgres.atomicAgain);
    }

    /** The atomic mode's completion and release with their COMMIT, one message each, on PostgreSQL. */
    static List<SqlStatement> atomicFinishStatements(PostgresStatements postgres) {
        return List.of(postgres.completeAndCommit, postgres.releaseAndCommit);
    }
}
