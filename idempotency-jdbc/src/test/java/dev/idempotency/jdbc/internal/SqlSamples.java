package dev.idempotency.jdbc.internal;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.jdbc.JdbcStore;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/** Sample values for every named parameter, for query plans. */
final class SqlSamples {

    static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    static final RecordKey KEY = new RecordKey("tenant-1", "POST", "/orders", "key-1");
    static final StoredResponse RESPONSE = new StoredResponse(201, "application/json",
            Map.of("Location", List.of("/orders/7")), "{\"id\":7}".getBytes(StandardCharsets.UTF_8));
    static final NewRow ROW = new NewRow(KEY, "a".repeat(64), IdempotencyTable.COMPLETED, "token-1",
            NOW.plusSeconds(30), RESPONSE, NOW.plusSeconds(86400), NOW);

    private SqlSamples() {
    }

    /** A value for every parameter any statement names. */
    static Map<String, Object> values() {
        Map<String, Object> values = IdempotencyTable.rowValues(ROW, NOW);
        values.put("limit", 1000);
        return values;
    }

    static Statements statements(SQLDialect dialect, boolean formatted) {
        return Dialects.statements(dialect, new IdempotencyTable(DSL.name(JdbcStore.DEFAULT_TABLE), dialect), formatted);
    }
}
