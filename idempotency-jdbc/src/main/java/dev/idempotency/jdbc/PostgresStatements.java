package dev.idempotency.jdbc;

import static org.jooq.impl.DSL.excluded;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.notExists;
import static org.jooq.impl.DSL.row;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertOnConflictConditionStep;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.Result;
import org.jooq.ResultQuery;
import org.jooq.SelectField;

/**
 * PostgreSQL: every primitive is one statement.
 *
 * <p>The reservation is one {@code WITH cur AS (primary-key read), ins AS (INSERT … SELECT …
 * WHERE NOT EXISTS (live row in cur) ON CONFLICT … DO UPDATE … WHERE <not live> RETURNING …)}
 * whose result is either the inserted (or taken-over) row, or the live row that is in the way.
 * When the key is held by a live record the INSERT is never attempted, so a replay takes no row
 * lock and writes nothing. When a concurrent transaction inserted the key after this statement's
 * snapshot, {@code ON CONFLICT} waits for it and re-checks the condition on the newest version;
 * the statement then returns no row and the caller asks again (its next snapshot sees the winner).
 */
final class PostgresStatements extends Statements {

    PostgresStatements(IdempotencyTable t) {
        super(t);
    }

    @Override
    Attempt reserve(DSLContext ctx, NewRow row, Instant now) {
        Result<Record> result = reserveQuery(ctx, row, now).fetch();
        if (result.isEmpty()) {
            return RETRY;
        }
        Record first = result.get(0);
        if (Boolean.TRUE.equals(first.get("won", Boolean.class))) {
            return WON;
        }
        return lostTo(row.key(), first.into(t.recordColumns.toArray(Field<?>[]::new)), now);
    }

    @Override
    boolean insertCompleted(DSLContext ctx, NewRow row, Instant now) {
        return insertCompletedQuery(ctx, row, now).execute() == 1;
    }

    @Override
    List<Query> reserveStatements(DSLContext ctx, NewRow row, Instant now) {
        return List.of(reserveQuery(ctx, row, now));
    }

    @Override
    List<Query> insertCompletedStatements(DSLContext ctx, NewRow row, Instant now) {
        return List.of(insertCompletedQuery(ctx, row, now));
    }

    /**
     * One batch through the {@code expires_at} index. {@code SKIP LOCKED} lets purges of several
     * application instances run side by side without waiting on each other.
     */
    @Override
    Query purgeQuery(DSLContext ctx, Instant now, int limit) {
        return ctx.deleteFrom(t.table)
                .where(row(t.key, t.tenantId, t.method, t.path).in(
                        select(t.key, t.tenantId, t.method, t.path)
                                .from(t.table)
                                .where(t.expiresAt.le(now))
                                .limit(limit)
                                .forUpdate()
                                .skipLocked()));
    }

    /** Returns one row: {@code won = true} with this caller's row, or {@code won = false} with the live row in the way. */
    ResultQuery<Record> reserveQuery(DSLContext ctx, NewRow row, Instant now) {
        CommonTableExpression<Record> cur = name("cur").as(
                select(t.recordColumns).from(t.table).where(t.primaryKey(row.key())));
        CommonTableExpression<Record> ins = name("ins").as(
                conditionalInsert(ctx, row, now, notExists(selectOne().from(cur).where(t.isLive(cur, now))))
                        .returningResult(t.recordColumns.stream().map(this::target).toList()));

        List<SelectField<?>> won = new ArrayList<>();
        won.add(inline(true).as("won"));
        t.recordColumns.forEach(c -> won.add(ins.field(c)));
        List<SelectField<?>> lost = new ArrayList<>();
        lost.add(inline(false).as("won"));
        t.recordColumns.forEach(c -> lost.add(cur.field(c)));

        return ctx.with(cur).with(ins)
                .select(won).from(ins)
                .unionAll(select(lost).from(cur).where(t.isLive(cur, now)));
    }

    Query insertCompletedQuery(DSLContext ctx, NewRow row, Instant now) {
        return conditionalInsert(ctx, row, now,
                notExists(selectOne().from(t.table).where(t.primaryKey(row.key()).and(t.isLive(now)))));
    }

    /**
     * {@code INSERT … SELECT <row> WHERE <no live row in this statement's snapshot> ON CONFLICT
     * … DO UPDATE <take over> WHERE <the newest version is not live>}. The first test spares a
     * replay the row lock; the second is what makes it atomic.
     */
    private InsertOnConflictConditionStep<Record> conditionalInsert(DSLContext ctx, NewRow row, Instant now,
                                                                    Condition noLiveRow) {
        return ctx.insertInto(t.table).columns(t.columns)
                .select(select(typedValues(row)).where(noLiveRow))
                .onConflict(t.key, t.tenantId, t.method, t.path)
                .doUpdate()
                .set(takeOver())
                .where(targetIsNotLive(now));
    }

    private Map<Field<?>, Field<?>> takeOver() {
        Map<Field<?>, Field<?>> set = new LinkedHashMap<>();
        nonKeyColumns().forEach(c -> set.put(c, excluded(c)));
        return set;
    }
}
