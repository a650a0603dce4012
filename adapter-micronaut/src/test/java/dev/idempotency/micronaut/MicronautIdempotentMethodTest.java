package dev.idempotency.micronaut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.core.store.Store;
import dev.idempotency.jdbc.JdbcStore;
import dev.idempotency.testkit.IdempotentMethodChecks;
import dev.idempotency.testkit.internal.PostgresTestSchema;
import io.micronaut.context.ApplicationContext;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link IdempotentMethod} on a bean of a Micronaut context ({@link MethodPayments}), in the reserve
 * mode over the JDBC store on a throwaway PostgreSQL schema ({@code idempotency.in-flight-wait=PT0.5S}),
 * results through Micronaut Serialization's {@code JsonMapper}: test-kit's suite.
 */
class MicronautIdempotentMethodTest extends IdempotentMethodChecks {

    private static PostgresTestSchema schema;
    private static ApplicationContext context;

    static ApplicationContext start(PostgresTestSchema schema, String mode) {
        return ApplicationContext.run(Map.of(
                "datasources.default.url", schema.url(),
                "datasources.default.username", PostgresTestSchema.USER,
                "datasources.default.password", PostgresTestSchema.PASSWORD,
                "datasources.default.driver-class-name", "org.postgresql.Driver",
                "idempotency.enabled", true,
                "idempotency.mode", mode,
                "idempotency.in-flight-wait", "PT0.5S",
                "idempotency.jdbc.initialize-schema", "always"));
    }

    @BeforeAll
    static void start() {
        schema = new PostgresTestSchema();
        context = start(schema, "reserve");
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
        if (schema != null) {
            schema.close();
        }
    }

    @Override
    protected Payments payments() {
        return context.getBean(MethodPayments.class);
    }

    @Test
    void theCallsAreFiledInTheJdbcStoresTable() throws Exception {
        long records = calls();

        payments().charge(new Charge("c-" + UUID.randomUUID(), "acct-1", 5), 0);

        assertThat(context.getBean(Store.class)).isInstanceOf(JdbcStore.class);
        assertThat(calls()).isEqualTo(records + 1);
    }

    /** Without the engine there is nothing to decide: the method is refused rather than run unguarded. */
    @Test
    void withoutIdempotencyEnabledTheMethodIsRefusedNotRunUnguarded() {
        try (ApplicationContext plain = ApplicationContext.run()) {
            MethodPayments bean = plain.getBean(MethodPayments.class);

            assertThatThrownBy(() -> bean.charge(new Charge("c-" + UUID.randomUUID(), "acct-1", 5), 0))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("idempotency.enabled=true");
            assertThat(bean.runs()).isZero();
        }
    }

    private static long calls() throws SQLException {
        try (Connection c = context.getBean(DataSource.class).getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM idempotency_keys WHERE method = 'CALL'")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
