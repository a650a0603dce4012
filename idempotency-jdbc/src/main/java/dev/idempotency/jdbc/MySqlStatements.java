package dev.idempotency.jdbc;

import static org.jooq.impl.DSL.excluded;
import static org.jooq.impl.DSL.when;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertOnDuplicateSetMoreStep;
import org.jooq.Query;
import org.jooq.Record;

/**
 * MariaDB and MySQL, which have neither {@code ON CONFLICT … WHERE} nor, on MySQL,
 * {@code RETURNING}.
 *
 * <p>The reservation is one {@code INSERT … ON DUPLICATE KEY UPDATE} that takes the existing row
 * over only when it is not live: the first assignment writes this caller's fresh owner token if
 * the row is not live and keeps the old token otherwise, and every later assignment copies the new
 * value only if the token is now this caller's. (The server evaluates the assignments left to
 * right, each seeing the columns already assigned, so conditioning every column on the liveness
 * test directly would see half-updated rows; the token, unique per attempt, is the one stable
 * signal.) Whoever's token is in the row afterwards won.
 *
 * <p>MariaDB (10.5+) returns that row from the same statement with {@code RETURNING}. MySQL
 * reads it back by primary key afterwards: a separate statement, but only an observation — the
 * decision was made atomically by the upsert, and the token tells who made it.
 */
final class MySqlStatements extends Statements {

    private final boolean returning;

    MySqlStatements(IdempotencyTable t, boolean returning) {
        super(t);
        this.returning = returning;
    }

    @Override
    Attempt reserve(DSLContext ctx, NewRow row, Instant now) {
        Optional<Record> after = upsert(ctx, row, now);
        if (after.isEmpty()) {
            return RETRY;
        }
        Record stored = after.get();
        if (row.ownerToken().equals(stored.get(t.ownerToken))) {
            return WON;
        }
        return lostTo(row.key(), stored, now);
    }

    @Override
    boolean insertCompleted(DSLContext ctx, NewRow row, Instant now) {
        return upsert(ctx, row, now).map(stored -> row.ownerToken().equals(stored.get(t.ownerToken))).orElse(false);
    }

    @Override
    List<Query> reserveStatements(DSLContext ctx, NewRow row, Instant now) {
        return returning ? List.of(upsertQuery(ctx, row, now).returningResult(t.recordColumns))
                : List.of(upsertQuery(ctx, row, now), readBackQuery(ctx, row.key()));
    }

    @Override
    List<Query> insertCompletedStatements(DSLContext ctx, NewRow row, Instant now) {
        return reserveStatements(ctx, row, now);
    }

    /**
     * One batch in {@code expires_at} order, through its index. MariaDB and MySQL delete with
     * {@code LIMIT} directly.
     */
    @Override
    Query purgeQuery(DSLContext ctx, Instant now, int limit) {
        return ctx.deleteFrom(t.table).where(t.expiresAt.le(now)).orderBy(t.expiresAt).limit(limit);
    }

    /** The row as it stands after the conditional upsert; empty only if it vanished meanwhile. */
    private Optional<Record> upsert(DSLContext ctx, NewRow row, Instant now) {
        InsertOnDuplicateSetMoreStep<Record> upsert = upsertQuery(ctx, row, now);
        if (returning) {
            return upsert.returningResult(t.recordColumns).fetchOptional().map(r -> r.into(recordFields()));
        }
        upsert.execute();
        return readBackQuery(ctx, row.key()).fetchOptional();
    }

    private InsertOnDuplicateSetMoreStep<Record> upsertQuery(DSLContext ctx, NewRow row, Instant now) {
        return ctx.insertInto(t.table).columns(t.columns)
                .values(values(row))
                .onDuplicateKeyUpdate()
                .set(takeOverIfNotLive(now));
    }

    private Map<Field<?>, Field<?>> takeOverIfNotLive(Instant now) {
        Map<Field<?>, Field<?>> set = new LinkedHashMap<>();
        set.put(t.ownerToken, when(t.isNotLive(now), excluded(t.ownerToken)).otherwise(t.ownerToken));
        for (Field<?> column : nonKeyColumns()) {
            if (column != t.ownerToken) {
                set.put(column, takeOverIfOwned(column));
            }
        }
        return set;
    }

    private <T> Field<T> takeOverIfOwned(Field<T> column) {
        return when(t.ownerToken.eq(excluded(t.ownerToken)), excluded(column)).otherwise(column);
    }

    private Field<?>[] recordFields() {
        return t.recordColumns.toArray(Field<?>[]::new);
    }
}
