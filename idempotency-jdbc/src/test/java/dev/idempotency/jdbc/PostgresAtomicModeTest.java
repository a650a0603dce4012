package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.Decision;
import dev.idempotency.core.Execution;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.core.RequestView;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The atomic mode on PostgreSQL, plus the tenant setting that row-level security adds to its transaction. */
class PostgresAtomicModeTest extends AbstractAtomicModeTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.postgres();
    }

    @Test
    void withRowLevelSecurityTheHandlersStatementsRunUnderTheRequestsTenant() throws Exception {
        JdbcStore rls = JdbcStore.builder(pool).rowLevelSecurity(true).build();
        IdempotencyConfig config = IdempotencyConfig.builder().mode(Mode.ATOMIC)
                .tenantResolver(request -> Optional.of("tenant-42")).build();
        try (IdempotencyEngine engine = new IdempotencyEngine(rls, config)) {
            RequestView request = RequestView.of("POST", "/orders", Map.of("Idempotency-Key", List.of(newKey())),
                    ORDER.getBytes(StandardCharsets.UTF_8));
            Execution execution = ((Decision.Proceed) engine.before(request)).execution();
            Connection c = execution.unwrap(Connection.class).orElseThrow();

            assertThat(query(c, "SELECT current_setting('" + JdbcStore.DEFAULT_TENANT_SETTING + "', true)"))
                    .isEqualTo("tenant-42");
            execution.finish(Requests.created("{\"order\":1}"));
        }
    }
}
