package dev.idempotency.jdbc.internal;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.param;
import static org.jooq.impl.DSL.table;

import dev.idempotency.core.store.HeaderCodec;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.StoredResponse;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.jooq.Condition;
import org.jooq.Converter;
import org.jooq.DataType;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.Param;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The idempotency table as jOOQ sees it: names, column types per dialect, the named parameters
 * every statement binds, and the conditions every statement is built from ({@link #isLive}, its
 * negation, and what {@code find} and the purge see of them).
 *
 * <p>Times are bound as values computed from the engine's clock, truncated to
 * microseconds (the precision of every supported column type), so the database's own clock never
 * takes part.
 * <p>Internal, not API: may change without notice.
 */
public final class IdempotencyTable {

    public static final String IN_FLIGHT = "IN_FLIGHT";
    public static final String COMPLETED = "COMPLETED";

    /** The caller's hex digits as the column's bytes: {@code ""} ↔ no bytes. */
    static final Converter<byte[], String> CALLER_BYTES = Converter.ofNullable(byte[].class, String.class,
            bytes -> HexFormat.of().formatHex(bytes), hex -> HexFormat.of().parseHex(hex));

    final Table<Record> table;
    final Name tableName;
    /** Whether times are {@code DATETIME} holding UTC (MariaDB, MySQL) rather than zoned timestamps. */
    final boolean localTime;

    final Field<String> key = field(name("key"), SQLDataType.VARCHAR);
    final Field<String> tenantId = field(name("tenant_id"), SQLDataType.VARCHAR);
    /** {@link RecordKey#caller()}: its 16 bytes in a binary column, none for an anonymous caller. */
    final Field<String> caller = field(name("caller"), SQLDataType.VARBINARY.asConvertedDataType(CALLER_BYTES));
    final Field<String> method = field(name("method"), SQLDataType.VARCHAR);
    final Field<String> path = field(name("path"), SQLDataType.VARCHAR);
    final Field<String> requestHash = field(name("request_hash"), SQLDataType.VARCHAR);
    final Field<String> state = field(name("state"), SQLDataType.VARCHAR);
    final Field<String> ownerToken = field(name("owner_token"), SQLDataType.VARCHAR);
    final Field<Instant> lockedUntil;
    final Field<Short> responseStatus = field(name("response_status"), SQLDataType.SMALLINT);
    final Field<String> responseContentType = field(name("response_content_type"), SQLDataType.VARCHAR);
    final Field<String> responseHeaders = field(name("response_headers"), SQLDataType.VARCHAR);
    final Field<byte[]> responseBody = field(name("response_body"), SQLDataType.BLOB);
    final Field<Short> formatVersion = field(name("format_version"), SQLDataType.SMALLINT);
    final Field<Instant> expiresAt;
    final Field<Instant> createdAt;

    /** Every column, the primary key's first in its order; the order rows are inserted in. */
    final List<Field<?>> columns;
    /** The columns a loser needs to describe the record in its way. */
    final List<Field<?>> recordColumns;
    /** One parameter per column, named like it. */
    final List<Param<?>> columnParams;

    private static final int PRIMARY_KEY_COLUMNS = 5;

    /** The engine's "now". */
    final Param<Instant> now;
    /** A batch size. */
    final Param<Integer> limit = param("limit", SQLDataType.INTEGER);

    public IdempotencyTable(Name tableName, SQLDialect dialect) {
        this.tableName = tableName;
        this.table = table(tableName);
        this.localTime = Dialects.bindsLocalTime(dialect);
        DataType<Instant> time = timeType(localTime);
        lockedUntil = field(name("locked_until"), time);
        expiresAt = field(name("expires_at"), time);
        createdAt = field(name("created_at"), time);
        now = param("now", time);
        columns = List.of(key, tenantId, caller, method, path, requestHash, state, ownerToken, lockedUntil,
                responseStatus, responseContentType, responseHeaders, responseBody, formatVersion, expiresAt, createdAt);
        recordColumns = List.of(requestHash, state, ownerToken, lockedUntil, responseStatus, responseContentType,
                responseHeaders, responseBody, formatVersion, expiresAt);
        columnParams = columns.stream().<Param<?>>map(c -> param(c.getName(), c.getDataType())).toList();
    }

    /**
     * PostgreSQL and H2 keep an absolute instant ({@code TIMESTAMP WITH TIME ZONE}). MariaDB and
     * MySQL have no such type with a range past 2038, so they get {@code DATETIME(6)} holding UTC.
     */
    private static DataType<Instant> timeType(boolean localTime) {
        if (localTime) {
            return SQLDataType.LOCALDATETIME(6).asConvertedDataType(Converter.ofNullable(LocalDateTime.class,
                    Instant.class, ldt -> ldt.toInstant(ZoneOffset.UTC), i -> LocalDateTime.ofInstant(i, ZoneOffset.UTC)));
        }
        return SQLDataType.INSTANT;
    }

    /** The time a statement compares against or stores: the engine's, at microsecond precision. */
    public static Instant micros(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MICROS);
    }

    /** The primary key's columns, in its order. */
    List<Field<?>> primaryKeyColumns() {
        return columns.subList(0, PRIMARY_KEY_COLUMNS);
    }

    /** {@code key = :key AND tenant_id = :tenant_id AND caller = :caller AND method = :method AND path = :path}. */
    Condition primaryKey() {
        return key.eq(paramOf(key)).and(tenantId.eq(paramOf(tenantId))).and(caller.eq(paramOf(caller)))
                .and(method.eq(paramOf(method))).and(path.eq(paramOf(path)));
    }

    /** The parameter named after {@code column}. */
    @SuppressWarnings("unchecked")
    <T> Param<T> paramOf(Field<T> column) {
        return (Param<T>) columnParams.get(columns.indexOf(column));
    }

    /**
     * A record that blocks a reservation: completed and not expired, or in flight under a lease
     * that still runs — whatever its {@code expires_at} says, since a renewal pushes that along
     * with the lease and a row renewed by an older release may lag behind. {@code owner} qualifies
     * the columns (a CTE, or the target of an upsert).
     */
    Condition isLive(Table<?> owner) {
        return isLive(owner.field(expiresAt), owner.field(state), owner.field(lockedUntil));
    }

    Condition isLive() {
        return isLive(expiresAt, state, lockedUntil);
    }

    /** The negation of {@link #isLive()} (an in-flight row always has a lease, a completed one none). */
    Condition isNotLive() {
        return isNotLive(expiresAt, state, lockedUntil);
    }

    private Condition isLive(Field<Instant> expires, Field<String> rowState, Field<Instant> lease) {
        return rowState.eq(inline(IN_FLIGHT)).and(lease.gt(now))
                .or(rowState.eq(inline(COMPLETED)).and(expires.gt(now)));
    }

    /** {@link #isNotLive()} on the given columns (those of an upsert's target, say). */
    Condition isNotLive(Field<Instant> expires, Field<String> rowState, Field<Instant> lease) {
        return rowState.eq(inline(IN_FLIGHT)).and(lease.le(now))
                .or(rowState.eq(inline(COMPLETED)).and(expires.le(now)));
    }

    /** A record {@code find} returns: not expired, or in flight under a lease that still runs. */
    Condition isPresent() {
        return expiresAt.gt(now).or(lockedUntil.gt(now));
    }

    /**
     * A row the purge deletes: expired and not live, so an in-flight row whose lease still runs
     * stays whatever its {@code expires_at}. The expiry comes first: the purge reads its index.
     */
    Condition isPurgeable() {
        return expiresAt.le(now).and(state.eq(inline(COMPLETED)).or(lockedUntil.le(now)));
    }

    /**
     * A renewal's new expiry: the later of the current one and the new lease's end, so that a
     * renewed reservation outlives its lease and neither the purge nor a take-over touches it.
     */
    Field<Instant> expiryAfterRenewal() {
        return DSL.greatest(expiresAt, paramOf(lockedUntil));
    }

    /** The values of the primary-key parameters. */
    public static Map<String, Object> keyValues(RecordKey k) {
        Map<String, Object> values = new HashMap<>();
        values.put("key", k.key());
        values.put("tenant_id", k.tenant());
        values.put("caller", k.caller());
        values.put("method", k.method());
        values.put("path", k.path());
        return values;
    }

    /** The values of every column parameter for {@code row}, and {@code now}. */
    public static Map<String, Object> rowValues(NewRow row, Instant now) {
        Map<String, Object> values = keyValues(row.key());
        StoredResponse response = row.response();
        values.put("request_hash", row.fingerprint());
        values.put("state", row.state());
        values.put("owner_token", row.ownerToken());
        values.put("locked_until", row.lockedUntil());
        values.put("response_status", response == null ? null : (short) response.status());
        values.put("response_content_type", response == null ? null : response.contentType());
        values.put("response_headers", response == null ? null : HeaderCodec.encode(response.headers()));
        values.put("response_body", response == null ? null : response.body());
        values.put("format_version", (short) (response == null ? HeaderCodec.FORMAT_VERSION
                : HeaderCodec.formatVersion(response)));
        values.put("expires_at", row.expiresAt());
        values.put("created_at", row.createdAt());
        values.put("now", now);
        return values;
    }

    /** The record the current row of {@code rs} (holding {@link #recordColumns}) describes. */
    IdempotencyRecord read(RecordKey k, ResultSet rs) throws SQLException {
        String rowState = rs.getString("state");
        Instant expires = time(rs, "expires_at");
        String fingerprint = rs.getString("request_hash");
        if (COMPLETED.equals(rowState)) {
            StoredResponse response = HeaderCodec.response(rs.getShort("response_status"),
                    rs.getString("response_content_type"), rs.getString("response_headers"),
                    rs.getBytes("response_body"), rs.getShort("format_version"));
            return new IdempotencyRecord(k, fingerprint, RecordState.COMPLETED, response, expires, null);
        }
        if (IN_FLIGHT.equals(rowState)) {
            return new IdempotencyRecord(k, fingerprint, RecordState.IN_FLIGHT, null, expires,
                    time(rs, "locked_until"));
        }
        throw new IllegalStateException("Unknown record state '" + rowState + "' for " + k);
    }

    private Instant time(ResultSet rs, String column) throws SQLException {
        if (localTime) {
            LocalDateTime value = rs.getObject(column, LocalDateTime.class);
            return value == null ? null : value.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
