package dev.idempotency.jdbc;

import static org.jooq.impl.DSL.row;
import static org.jooq.impl.DSL.select;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.Table;
import org.jooq.exception.IntegrityConstraintViolationException;

/**
 * H2 (2.x), which has no {@code ON CONFLICT} of its own: the conditional upsert is one standard
 * {@code MERGE INTO … USING (SELECT <row>) source ON <primary key> WHEN MATCHED AND <not live>
 * THEN UPDATE … WHEN NOT MATCHED THEN INSERT …}. H2 re-checks the {@code WHEN MATCHED} condition after waiting for a
 * row lock, so a concurrent take-over cannot both succeed; two concurrent inserts of a new key end
 * with one primary-key violation, which is a lost race to ask about again. A lost reservation reads
 * the winner by primary key (in-process, so the extra statement costs no network round trip).
 */
final class H2Statements extends Statements {

    /** SQLState of a unique or primary-key violation. */
    private static final String UNIQUE_VIOLATION = "23505";

    H2Statements(IdempotencyTable t) {
        super(t);
    }

    @Override
    Attempt reserve(DSLContext ctx, NewRow row, Instant now) {
        Boolean inserted = merge(ctx, row, now);
        if (inserted == null) {
            return RETRY;
        }
        if (inserted) {
            return WON;
        }
        return readBackQuery(ctx, row.key())
                .fetchOptional()
                .map(stored -> lostTo(row.key(), stored, now))
                .orElse(RETRY);
    }

    @Override
    boolean insertCompleted(DSLContext ctx, NewRow row, Instant now) {
        for (int attempt = 0; ; attempt++) {
            Boolean inserted = merge(ctx, row, now);
            if (inserted != null || attempt == 3) {
                return Boolean.TRUE.equals(inserted);
            }
        }
    }

    @Override
    List<Query> reserveStatements(DSLContext ctx, NewRow row, Instant now) {
        return List.of(mergeQuery(ctx, row, now));
    }

    @Override
    List<Query> insertCompletedStatements(DSLContext ctx, NewRow row, Instant now) {
        return List.of(mergeQuery(ctx, row, now));
    }

    @Override
    Query purgeQuery(DSLContext ctx, Instant now, int limit) {
        return ctx.deleteFrom(t.table)
                .where(row(t.key, t.tenantId, t.method, t.path).in(
                        select(t.key, t.tenantId, t.method, t.path)
                                .from(t.table)
                                .where(t.expiresAt.le(now))
                                .limit(limit)));
    }

    /** Whether the row went in; {@code null} when a concurrent insert of the same key beat it. */
    private Boolean merge(DSLContext ctx, NewRow row, Instant now) {
        try {
            return mergeQuery(ctx, row, now).execute() == 1;
        } catch (IntegrityConstraintViolationException e) {
            if (UNIQUE_VIOLATION.equals(e.sqlState())) {
                return null;
            }
            throw e;
        }
    }

    private Query mergeQuery(DSLContext ctx, NewRow row, Instant now) {
        Table<?> source = select(typedValues(row)).asTable("source");
        Map<Field<?>, Field<?>> takeOver = new LinkedHashMap<>();
        nonKeyColumns().forEach(c -> takeOver.put(c, source.field(c)));
        return ctx.mergeInto(t.table)
                .using(source)
                .on(target(t.key).eq(source.field(t.key))
                        .and(target(t.tenantId).eq(source.field(t.tenantId)))
                        .and(target(t.method).eq(source.field(t.method)))
                        .and(target(t.path).eq(source.field(t.path))))
                .whenMatchedAnd(targetIsNotLive(now)).thenUpdate().set(takeOver)
                .whenNotMatchedThenInsert(t.columns)
                .values(t.columns.stream().map(source::field).toList());
    }
}
