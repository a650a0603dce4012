package dev.idempotency.jdbc;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.val;

import dev.idempotency.core.store.HeaderCodec;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.ResultQuery;
import org.jooq.SQLDialect;

/**
 * The SQL of each store primitive. What every dialect says the same way lives here (the
 * primary-key read, the owner-checked UPDATE and DELETE); each dialect supplies its own atomic
 * "insert unless a live record exists" and its bounded purge.
 *
 * <p>Every method runs exactly the statements its Javadoc names, on the context it is given, so
 * the caller decides whether they share a transaction (row-level security does).
 */
abstract class Statements {

    /** The result of one reservation attempt. */
    sealed interface Attempt {
        /** This caller's row is in place. */
        record Won() implements Attempt {
        }

        /** A live record is in the way. */
        record Lost(IdempotencyRecord record) implements Attempt {
        }

        /**
         * The statement lost a race it cannot describe (the row it conflicted with was not yet
         * visible, or went away again); trying again settles it.
         */
        record Retry() implements Attempt {
        }
    }

    static final Attempt WON = new Attempt.Won();
    static final Attempt RETRY = new Attempt.Retry();

    final IdempotencyTable t;

    Statements(IdempotencyTable t) {
        this.t = t;
    }

    static Statements forDialect(SQLDialect dialect, IdempotencyTable table) {
        if (Dialects.isPostgres(dialect)) {
            return new PostgresStatements(table);
        }
        if (dialect.family() == SQLDialect.MARIADB) {
            return new MySqlStatements(table, true);
        }
        if (dialect.family() == SQLDialect.MYSQL) {
            return new MySqlStatements(table, false);
        }
        if (Dialects.isH2(dialect)) {
            return new H2Statements(table);
        }
        throw new IllegalArgumentException("Unsupported dialect " + dialect
                + "; use POSTGRES, MARIADB, MYSQL or H2");
    }

    /** Writes {@code row} unless a live record holds its key; says who holds it otherwise. */
    abstract Attempt reserve(DSLContext ctx, NewRow row, Instant now);

    /** Writes the completed {@code row} unless a live record holds its key. */
    abstract boolean insertCompleted(DSLContext ctx, NewRow row, Instant now);

    /**
     * The statements {@link #reserve} sends, in order, when it wins at the first attempt (a lost
     * attempt may add a primary-key read where the dialect needs one); for documentation and
     * query plans.
     */
    abstract List<Query> reserveStatements(DSLContext ctx, NewRow row, Instant now);

    /** The statements {@link #insertCompleted} sends, in order. */
    abstract List<Query> insertCompletedStatements(DSLContext ctx, NewRow row, Instant now);

    /** One DELETE of at most {@code limit} rows with {@code expires_at <= now}. */
    abstract Query purgeQuery(DSLContext ctx, Instant now, int limit);

    /** Deletes at most {@code limit} rows with {@code expires_at <= now}. */
    final int purge(DSLContext ctx, Instant now, int limit) {
        return purgeQuery(ctx, now, limit).execute();
    }

    /** One primary-key read: the record unless it has expired. */
    final Optional<IdempotencyRecord> find(DSLContext ctx, RecordKey key, Instant now) {
        return findQuery(ctx, key, now).fetchOptional().map(row -> t.toRecord(key, row));
    }

    final ResultQuery<Record> findQuery(DSLContext ctx, RecordKey key, Instant now) {
        return ctx.select(t.recordColumns)
                .from(t.table)
                .where(t.primaryKey(key).and(t.expiresAt.gt(now)));
    }

    /** The row for {@code key}, live or not: what a lost upsert reads back where it cannot return it. */
    final ResultQuery<Record> readBackQuery(DSLContext ctx, RecordKey key) {
        return ctx.select(t.recordColumns).from(t.table).where(t.primaryKey(key));
    }

    /** One UPDATE, applied only while {@code ownerToken} still holds the in-flight row. */
    final boolean complete(DSLContext ctx, RecordKey key, String ownerToken, StoredResponse response,
                           Instant expiresAt) {
        return completeQuery(ctx, key, ownerToken, response, expiresAt).execute() == 1;
    }

    final Query completeQuery(DSLContext ctx, RecordKey key, String ownerToken, StoredResponse response,
                              Instant expiresAt) {
        return ctx.update(t.table)
                .set(t.state, IdempotencyTable.COMPLETED)
                .set(t.lockedUntil, (Instant) null)
                .set(t.responseStatus, (short) response.status())
                .set(t.responseContentType, response.contentType())
                .set(t.responseHeaders, HeaderCodec.encode(response.headers()))
                .set(t.responseBody, response.body())
                .set(t.formatVersion, (short) HeaderCodec.FORMAT_VERSION)
                .set(t.expiresAt, expiresAt)
                .where(owned(key, ownerToken));
    }

    /** One DELETE of the in-flight row, only while {@code ownerToken} still holds it. */
    final boolean release(DSLContext ctx, RecordKey key, String ownerToken) {
        return releaseQuery(ctx, key, ownerToken).execute() == 1;
    }

    final Query releaseQuery(DSLContext ctx, RecordKey key, String ownerToken) {
        return ctx.deleteFrom(t.table).where(owned(key, ownerToken));
    }

    /** One UPDATE of the lease, only while {@code ownerToken} still holds the in-flight row. */
    final boolean renew(DSLContext ctx, RecordKey key, String ownerToken, Instant lockedUntil) {
        return renewQuery(ctx, key, ownerToken, lockedUntil).execute() == 1;
    }

    final Query renewQuery(DSLContext ctx, RecordKey key, String ownerToken, Instant lockedUntil) {
        return ctx.update(t.table)
                .set(t.lockedUntil, lockedUntil)
                .where(owned(key, ownerToken));
    }

    /**
     * The owner check of complete, release and renew: the token this handle wrote is still there
     * and the row is still in flight. The lease is deliberately not part of it: a lapsed lease
     * that nobody took over leaves the token in place, and finishing then is exactly what a
     * retry would want. A take-over always writes a new token.
     */
    private Condition owned(RecordKey key, String ownerToken) {
        return t.primaryKey(key).and(t.ownerToken.eq(ownerToken)).and(t.state.eq(IdempotencyTable.IN_FLIGHT));
    }

    /** The values of {@code row}, in {@link IdempotencyTable#columns} order. */
    final List<Object> values(NewRow row) {
        StoredResponse response = row.response();
        List<Object> values = new ArrayList<>(t.columns.size());
        values.add(row.key().key());
        values.add(row.key().tenant());
        values.add(row.key().method());
        values.add(row.key().path());
        values.add(row.fingerprint());
        values.add(row.state());
        values.add(row.ownerToken());
        values.add(row.lockedUntil());
        values.add(response == null ? null : (short) response.status());
        values.add(response == null ? null : response.contentType());
        values.add(response == null ? null : HeaderCodec.encode(response.headers()));
        values.add(response == null ? null : response.body());
        values.add((short) HeaderCodec.FORMAT_VERSION);
        values.add(row.expiresAt());
        values.add(row.createdAt());
        return values;
    }

    /** The values of {@code row} as typed bind values, for INSERT … SELECT. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    final List<Field<?>> typedValues(NewRow row) {
        List<Object> values = values(row);
        List<Field<?>> typed = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++) {
            Field column = t.columns.get(i);
            typed.add(val(values.get(i), column).as(column.getUnqualifiedName()));
        }
        return typed;
    }

    /** The columns a take-over rewrites: everything but the primary key. */
    final List<Field<?>> nonKeyColumns() {
        return t.columns.subList(4, t.columns.size());
    }

    /** {@code column} qualified by the target table, for conditions next to a source of the same names. */
    final <T> Field<T> target(Field<T> column) {
        return field(t.tableName.append(column.getUnqualifiedName()), column.getDataType());
    }

    /** {@link IdempotencyTable#isNotLive} on the target table's own columns. */
    final Condition targetIsNotLive(Instant now) {
        return target(t.expiresAt).le(now)
                .or(target(t.state).eq(IdempotencyTable.IN_FLIGHT).and(target(t.lockedUntil).le(now)));
    }

    /** The record a row describes, when the row is live; else a retry. */
    final Attempt lostTo(RecordKey key, Record row, Instant now) {
        IdempotencyRecord record = t.toRecord(key, row);
        boolean live = record.expiresAt().isAfter(now)
                && (record.isCompleted() || record.leaseUntil().isAfter(now));
        return live ? new Attempt.Lost(record) : RETRY;
    }
}
