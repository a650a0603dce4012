package dev.idempotency.jdbc;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.jdbc.internal.Dialects;
import dev.idempotency.sql.SqlCatalog;
import dev.idempotency.sql.NewRow;
import dev.idempotency.sql.Records;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jooq.SQLDialect;

/** Sample values for every named parameter, for query plans. */
final class SqlSamples {

    static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    static final RecordKey KEY = new RecordKey("tenant-1", "POST", "/orders", "key-1");
    static final StoredResponse RESPONSE = new StoredResponse(201, "application/json",
            Map.of("Location", List.of("/orders/7")), "{\"id\":7}".getBytes(StandardCharsets.UTF_8));
    static final NewRow ROW = new NewRow(KEY, "a".repeat(64), Records.COMPLETED, "token-1",
            NOW.plusSeconds(30), RESPONSE, NOW.plusSeconds(86400), NOW);

    private SqlSamples() {
    }

    /** A value for every parameter any statement names. */
    static Map<String, Object> values() {
        Map<String, Object> values = Records.rowValues(ROW, NOW);
        values.put("limit", 1000);
        return values;
    }

    static SqlCatalog statements(SQLDialect dialect) {
        return SqlCatalog.of(Dialects.sqlDialect(dialect), JdbcStore.DEFAULT_TABLE);
    }
}
