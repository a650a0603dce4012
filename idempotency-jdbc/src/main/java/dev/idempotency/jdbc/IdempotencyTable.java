package dev.idempotency.jdbc;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.idempotency.core.store.HeaderCodec;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.StoredResponse;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.jooq.Condition;
import org.jooq.Converter;
import org.jooq.DataType;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * The idempotency table as jOOQ sees it: names, column types per dialect, and the two conditions
 * every statement is built from ({@link #isLive} and its negation).
 *
 * <p>Times are bound as values the caller computed from the engine's clock, truncated to
 * microseconds (the precision of every supported column type), so the database's own clock never
 * takes part.
 */
final class IdempotencyTable {

    static final String IN_FLIGHT = "IN_FLIGHT";
    static final String COMPLETED = "COMPLETED";

    final Table<Record> table;
    final Name tableName;

    final Field<String> key = field(name("key"), SQLDataType.VARCHAR);
    final Field<String> tenantId = field(name("tenant_id"), SQLDataType.VARCHAR);
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

    /** Every column, in DDL order; the order rows are inserted and read in. */
    final List<Field<?>> columns;
    /** The columns a loser needs to describe the record in its way. */
    final List<Field<?>> recordColumns;

    IdempotencyTable(Name tableName, SQLDialect dialect) {
        this.tableName = tableName;
        this.table = table(tableName);
        DataType<Instant> time = timeType(dialect);
        lockedUntil = field(name("locked_until"), time);
        expiresAt = field(name("expires_at"), time);
        createdAt = field(name("created_at"), time);
        columns = List.of(key, tenantId, method, path, requestHash, state, ownerToken, lockedUntil, responseStatus,
                responseContentType, responseHeaders, responseBody, formatVersion, expiresAt, createdAt);
        recordColumns = List.of(requestHash, state, ownerToken, lockedUntil, responseStatus, responseContentType,
                responseHeaders, responseBody, formatVersion, expiresAt);
    }

    /**
     * PostgreSQL and H2 keep an absolute instant ({@code TIMESTAMP WITH TIME ZONE}). MariaDB and
     * MySQL have no such type with a range past 2038, so they get {@code DATETIME(6)} holding UTC,
     * converted here rather than by the driver (whose conversion follows the JVM's zone).
     */
    private static DataType<Instant> timeType(SQLDialect dialect) {
        if (Dialects.isMySqlFamily(dialect)) {
            return SQLDataType.LOCALDATETIME(6).asConvertedDataType(Converter.ofNullable(LocalDateTime.class,
                    Instant.class, ldt -> ldt.toInstant(ZoneOffset.UTC), i -> LocalDateTime.ofInstant(i, ZoneOffset.UTC)));
        }
        return SQLDataType.INSTANT;
    }

    /** The time a statement compares against or stores: the caller's, at microsecond precision. */
    static Instant micros(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MICROS);
    }

    Condition primaryKey(RecordKey k) {
        return key.eq(k.key()).and(tenantId.eq(k.tenant())).and(method.eq(k.method())).and(path.eq(k.path()));
    }

    /**
     * A record that blocks a reservation: not expired, and either completed or in flight under a
     * lease that still runs. {@code owner} qualifies the columns (a CTE or the target table).
     */
    Condition isLive(Table<?> owner, Instant now) {
        return owner.field(expiresAt).gt(now)
                .and(owner.field(state).eq(COMPLETED).or(owner.field(lockedUntil).gt(now)));
    }

    Condition isLive(Instant now) {
        return expiresAt.gt(now).and(state.eq(COMPLETED).or(lockedUntil.gt(now)));
    }

    Condition isNotLive(Instant now) {
        return expiresAt.le(now).or(state.eq(IN_FLIGHT).and(lockedUntil.le(now)));
    }

    /** The record a row read with {@link #recordColumns} describes. */
    IdempotencyRecord toRecord(RecordKey k, Record row) {
        String rowState = row.get(state);
        Instant expires = row.get(expiresAt);
        if (COMPLETED.equals(rowState)) {
            int version = row.get(formatVersion);
            Map<String, List<String>> headers = HeaderCodec.decode(row.get(responseHeaders), version);
            byte[] body = row.get(responseBody);
            StoredResponse response = new StoredResponse(row.get(responseStatus), row.get(responseContentType),
                    headers, body == null ? new byte[0] : body);
            return new IdempotencyRecord(k, row.get(requestHash), RecordState.COMPLETED, response, expires, null);
        }
        if (IN_FLIGHT.equals(rowState)) {
            return new IdempotencyRecord(k, row.get(requestHash), RecordState.IN_FLIGHT, null, expires,
                    row.get(lockedUntil));
        }
        throw new IllegalStateException("Unknown record state '" + rowState + "' for " + k);
    }
}
