package dev.idempotency.vertx.sql;

import static dev.idempotency.vertx.sql.PgTestDatabase.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.HeaderCodec;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.StorageUnavailableException;
import io.vertx.sqlclient.Row;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The {@code caller} column: how a caller is stored, and a table from before it (idempotency-jdbc's V4). */
class PgCallerTest {

    private static final Instant NOW = Instant.parse("2030-05-01T10:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);
    private static final String FP = "f".repeat(64);
    private static final String ALICE = RecordKey.callerOf("alice");

    private static RecordKey withCaller(RecordKey key, String caller) {
        return new RecordKey(key.tenant(), caller, key.method(), key.path(), key.key());
    }

    @Test
    void aCallerIsStoredAsItsSixteenBytesAndAnAnonymousRecordWithNone() {
        try (PgTestDatabase db = new PgTestDatabase()) {
            PgStore store = PgStore.create(db.pool("caller-bytes", 2));
            await(store.createTableIfMissing());
            RecordKey anonymous = new RecordKey("t", "POST", "/orders", UUID.randomUUID().toString());
            assertThat(await(store.reserve(anonymous, FP, "owner-1", NOW, LEASE, TTL)))
                    .isInstanceOf(AsyncReserveResult.Acquired.class);
            assertThat(await(store.reserve(withCaller(anonymous, ALICE), FP, "owner-2", NOW, LEASE, TTL)))
                    .isInstanceOf(AsyncReserveResult.Acquired.class);

            List<byte[]> callers = new ArrayList<>();
            for (Row row : db.execute("SELECT caller FROM idempotency_keys WHERE key = '" + anonymous.key()
                    + "' ORDER BY length(caller)")) {
                callers.add(row.getBuffer("caller").getBytes());
            }
            assertThat(callers).hasSize(2);
            assertThat(callers.get(0)).isEmpty();
            assertThat(callers.get(1)).containsExactly(HexFormat.of().parseHex(ALICE)).hasSize(16);
        }
    }

    @Test
    void aTableFromBeforeTheCallerIsNotProvisionedUntilV4AndThenItsRowsAreAnonymous() {
        try (PgTestDatabase db = new PgTestDatabase()) {
            RecordKey anonymous = v1TableWithACompletedRow(db);
            PgStore store = PgStore.create(db.pool("caller-upgrade", 2));

            Throwable failure = catchThrowable(() -> await(store.find(anonymous, NOW)));
            assertThat(failure).isInstanceOf(StorageUnavailableException.class)
                    .hasMessageContaining("has no column caller")
                    .hasMessageContaining("V4__idempotency_keys_caller.sql");
            assertThat(((StorageUnavailableException) failure).reason())
                    .isEqualTo(StorageUnavailableException.Reason.NOT_PROVISIONED);

            db.execute(resource("db/idempotency/postgresql/V4__idempotency_keys_caller.sql"));

            theRowIsAnAnonymousRecordBesideWhichACallerReserves(store, anonymous);
        }
    }

    @Test
    void createTableIfMissingAddsTheCallerToATableFromBeforeItOnce() {
        try (PgTestDatabase db = new PgTestDatabase()) {
            RecordKey anonymous = v1TableWithACompletedRow(db);
            PgStore store = PgStore.create(db.pool("caller-create", 2));

            await(store.createTableIfMissing());
            long primaryKey = primaryKeyIndex(db);
            await(store.createTableIfMissing());

            assertThat(primaryKeyIndex(db)).as("the second call leaves the primary key alone").isEqualTo(primaryKey);
            theRowIsAnAnonymousRecordBesideWhichACallerReserves(store, anonymous);
        }
    }

    /** A table as V1 created it, holding one completed row; the row's (anonymous) key. */
    private static RecordKey v1TableWithACompletedRow(PgTestDatabase db) {
        db.execute(resource("db/idempotency/postgresql/V1__idempotency_keys.sql"));
        RecordKey anonymous = new RecordKey("t", "POST", "/orders", UUID.randomUUID().toString());
        db.execute("INSERT INTO idempotency_keys (key, tenant_id, method, path, request_hash, state, owner_token,"
                + " response_status, response_headers, response_body, format_version, expires_at, created_at)"
                + " VALUES ('" + anonymous.key() + "', 't', 'POST', '/orders', '" + FP + "', 'COMPLETED', 'old',"
                + " 201, '" + HeaderCodec.encode(Map.of()) + "', 'before'::bytea, 1, '" + NOW.plus(TTL) + "', '"
                + NOW + "')");
        return anonymous;
    }

    private static void theRowIsAnAnonymousRecordBesideWhichACallerReserves(PgStore store, RecordKey anonymous) {
        IdempotencyRecord before = await(store.find(anonymous, NOW)).orElseThrow();
        assertThat(before.key()).isEqualTo(anonymous);
        assertThat(before.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(before.response().body()).isEqualTo("before".getBytes(StandardCharsets.UTF_8));
        RecordKey alice = withCaller(anonymous, ALICE);
        assertThat(await(store.find(alice, NOW))).isEmpty();
        assertThat(await(store.reserve(alice, FP, "owner", NOW, LEASE, TTL)))
                .isInstanceOf(AsyncReserveResult.Acquired.class);
        assertThat(await(store.find(alice, NOW)).orElseThrow().state()).isEqualTo(RecordState.IN_FLIGHT);
        assertThat(await(store.find(anonymous, NOW)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    private static long primaryKeyIndex(PgTestDatabase db) {
        return db.execute("SELECT 'idempotency_keys_pkey'::regclass::oid::int8 AS id").iterator().next().getLong("id");
    }

    private static String resource(String name) {
        try (InputStream in = PgCallerTest.class.getClassLoader().getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
