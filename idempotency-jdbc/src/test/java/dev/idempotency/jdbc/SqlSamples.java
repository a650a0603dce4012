package dev.idempotency.jdbc;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/** Every statement a store step sends, with sample values, for plans and the README. */
final class SqlSamples {

    static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    static final RecordKey KEY = new RecordKey("tenant-1", "POST", "/orders", "key-1");
    static final StoredResponse RESPONSE = new StoredResponse(201, "application/json",
            Map.of("Location", List.of("/orders/7")), "{\"id\":7}".getBytes(StandardCharsets.UTF_8));
    static final NewRow RESERVATION = new NewRow(KEY, "a".repeat(64), IdempotencyTable.IN_FLIGHT, "token-1",
            NOW.plusSeconds(30), null, NOW.plusSeconds(86400), NOW);
    static final NewRow COMPLETED = new NewRow(KEY, "a".repeat(64), IdempotencyTable.COMPLETED, "token-2", null,
            RESPONSE, NOW.plusSeconds(86400), NOW);

    /** The steps in engine order, each with its statements. */
    record Step(String name, List<Query> statements) {
    }

    private SqlSamples() {
    }

    static DSLContext dsl(SQLDialect dialect) {
        return DSL.using(dialect, new Settings().withRenderFormatted(true));
    }

    static Statements statements(SQLDialect dialect, boolean mySqlReadBack) {
        IdempotencyTable table = new IdempotencyTable(DSL.name(JdbcStore.DEFAULT_TABLE), dialect);
        return mySqlReadBack ? new MySqlStatements(table, false) : Statements.forDialect(dialect, table);
    }

    static List<Step> steps(DSLContext ctx, Statements sql) {
        return List.of(
                new Step("reserve", sql.reserveStatements(ctx, RESERVATION, NOW)),
                new Step("replay lookup (find)", List.of(sql.findQuery(ctx, KEY, NOW))),
                new Step("complete", List.of(sql.completeQuery(ctx, KEY, "token-1", RESPONSE, NOW.plusSeconds(86400)))),
                new Step("release", List.of(sql.releaseQuery(ctx, KEY, "token-1"))),
                new Step("renew", List.of(sql.renewQuery(ctx, KEY, "token-1", NOW.plusSeconds(60)))),
                new Step("insertCompleted (optimistic mode)", sql.insertCompletedStatements(ctx, COMPLETED, NOW)),
                new Step("purge one batch", List.of(sql.purgeQuery(ctx, NOW, 1000))));
    }
}
