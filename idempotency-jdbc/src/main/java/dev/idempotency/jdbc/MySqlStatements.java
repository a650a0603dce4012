package dev.idempotency.jdbc;

import static org.jooq.impl.DSL.excluded;
import static org.jooq.impl.DSL.when;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jooq.Field;
import org.jooq.InsertOnDuplicateSetMoreStep;
import org.jooq.Record;
import org.jooq.SQLDialect;

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
 * reads it back by primary key afterwards: a second statement, but only an observation — the
 * decision was made atomically by the upsert, and the token tells who made it.
 */
final class MySqlStatements extends Statements {

    private final boolean returning;
    private final SqlStatement upsert;
    private final SqlStatement purge;

    MySqlStatements(IdempotencyTable t, SQLDialect dialect, boolean formatted, boolean returning) {
        super(t, dialect, formatted);
        this.returning = returning;
        InsertOnDuplicateSetMoreStep<Record> upsertQuery = ctx.insertInto(t.table).columns(t.columns)
                .values(t.columnParams)
                .onDuplicateKeyUpdate()
                .set(takeOverIfNotLive());
        upsert = compile(returning ? upsertQuery.returningResult(t.recordColumns) : upsertQuery);
        purge = compile(ctx.deleteFrom(t.table).where(t.expiresAt.le(t.now)).orderBy(t.expiresAt).limit(t.limit));
    }

    @Override
    Attempt reserve(Connection c, NewRow row, Instant now) throws SQLException {
        return upsert(c, row, now);
    }

    @Override
    boolean insertCompleted(Connection c, NewRow row, Instant now) throws SQLException {
        return upsert(c, row, now) == WON;
    }

    @Override
    List<SqlStatement> reserveStatements() {
        return returning ? List.of(upsert) : List.of(upsert, readBack);
    }

    @Override
    List<SqlStatement> insertCompletedStatements() {
        return reserveStatements();
    }

    /** One batch in {@code expires_at} order, through its index: MariaDB and MySQL delete with a limit directly. */
    @Override
    SqlStatement purgeStatement() {
        return purge;
    }

    /** Runs the conditional upsert and judges the row as it stands afterwards by its owner token. */
    private Attempt upsert(Connection c, NewRow row, Instant now) throws SQLException {
        Map<String, Object> values = IdempotencyTable.rowValues(row, now);
        if (!returning) {
            update(c, upsert, values);
        }
        try (PreparedStatement ps = (returning ? upsert : readBack).prepare(c, values);
             ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return RETRY;
            }
            return row.ownerToken().equals(rs.getString("owner_token")) ? WON : lostTo(t.read(row.key(), rs), now);
        }
    }

    private Map<Field<?>, Field<?>> takeOverIfNotLive() {
        Map<Field<?>, Field<?>> set = new LinkedHashMap<>();
        set.put(t.ownerToken, when(t.isNotLive(), excluded(t.ownerToken)).otherwise(t.ownerToken));
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
}
