package dev.idempotency.jdbc;

import static org.jooq.impl.DSL.excluded;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.notExists;
import static org.jooq.impl.DSL.row;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.InsertOnConflictConditionStep;
import org.jooq.Record;
import org.jooq.SQLDialect;
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

    private final SqlStatement reserve;
    private final SqlStatement insertCompleted;
    private final SqlStatement purge;

    PostgresStatements(IdempotencyTable t, SQLDialect dialect, boolean formatted) {
        super(t, dialect, formatted);
        CommonTableExpression<Record> cur = name("cur").as(
                select(t.recordColumns).from(t.table).where(t.primaryKey()));
        CommonTableExpression<Record> ins = name("ins").as(
                conditionalInsert(notExists(selectOne().from(cur).where(t.isLive(cur))))
                        .returningResult(t.recordColumns.stream().map(this::target).toList()));
        List<SelectField<?>> won = new ArrayList<>();
        won.add(inline(true).as("won"));
        t.recordColumns.forEach(c -> won.add(ins.field(c)));
        List<SelectField<?>> lost = new ArrayList<>();
        lost.add(inline(false).as("won"));
        t.recordColumns.forEach(c -> lost.add(cur.field(c)));
        reserve = compile(ctx.with(cur).with(ins)
                .select(won).from(ins)
                .unionAll(select(lost).from(cur).where(t.isLive(cur))));

        insertCompleted = compile(conditionalInsert(
                notExists(selectOne().from(t.table).where(t.primaryKey().and(t.isLive())))));

        // SKIP LOCKED lets purges of several application instances run side by side.
        purge = compile(ctx.deleteFrom(t.table)
                .where(row(t.key, t.tenantId, t.method, t.path).in(
                        select(t.key, t.tenantId, t.method, t.path)
                                .from(t.table)
                                .where(t.expiresAt.le(t.now))
                                .limit(t.limit)
                                .forUpdate()
                                .skipLocked())));
    }

    @Override
    Attempt reserve(Connection c, NewRow row, Instant now) throws SQLException {
        try (PreparedStatement ps = reserve.prepare(c, IdempotencyTable.rowValues(row, now));
             ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return RETRY;
            }
            return rs.getBoolean("won") ? WON : lostTo(t.read(row.key(), rs), now);
        }
    }

    @Override
    boolean insertCompleted(Connection c, NewRow row, Instant now) throws SQLException {
        return update(c, insertCompleted, IdempotencyTable.rowValues(row, now)) == 1;
    }

    @Override
    List<SqlStatement> reserveStatements() {
        return List.of(reserve);
    }

    @Override
    List<SqlStatement> insertCompletedStatements() {
        return List.of(insertCompleted);
    }

    @Override
    SqlStatement purgeStatement() {
        return purge;
    }

    /**
     * {@code INSERT … SELECT <row> WHERE <no live row in this statement's snapshot> ON CONFLICT
     * … DO UPDATE <take over> WHERE <the newest version is not live>}. The first test spares a
     * replay the row lock; the second is what makes it atomic.
     */
    private InsertOnConflictConditionStep<Record> conditionalInsert(Condition noLiveRow) {
        Map<Field<?>, Field<?>> takeOver = new LinkedHashMap<>();
        nonKeyColumns().forEach(c -> takeOver.put(c, excluded(c)));
        return ctx.insertInto(t.table).columns(t.columns)
                .select(select(rowAsSelectList()).where(noLiveRow))
                .onConflict(t.key, t.tenantId, t.method, t.path)
                .doUpdate()
                .set(takeOver)
                .where(targetIsNotLive());
    }
}
