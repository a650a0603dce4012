package dev.idempotency.micronaut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.framework.internal.ScheduledPurge;
import dev.idempotency.jdbc.JdbcStore;
import io.micronaut.context.ApplicationContext;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** The purge of the application's store, scheduled by default ({@code idempotency.purge.*}). */
class PurgeByDefaultTest {

    @Test
    void anExpiredRecordGoesOnItsOwnAndALiveOneStays() {
        JdbcDataSource database = database();
        JdbcStore seed = JdbcStore.builder(database).build();
        seed.createTableIfMissing();
        seed.reserve(key("expired"), "f".repeat(64), Instant.now().minus(Duration.ofHours(2)), Duration.ofSeconds(30),
                Duration.ofHours(1));
        seed.reserve(key("live"), "f".repeat(64), Instant.now(), Duration.ofSeconds(30), Duration.ofHours(1));
        try (ApplicationContext context = start(Map.of("idempotency.purge.interval", "100ms",
                "idempotency.purge.initial-delay", "0s"), database)) {
            assertThat(context.getBean(ScheduledPurge.class).isScheduled()).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> rows(database) == 1);
            assertThat(seed.find(key("live"), Instant.now())).isPresent();
        }
    }

    @Test
    void offWithEnabledFalseAndNoneOverTheInMemoryFallback() {
        try (ApplicationContext context = start(Map.of("idempotency.purge.enabled", false), database())) {
            assertThat(context.containsBean(ScheduledPurge.class)).isFalse();
        }
        try (ApplicationContext context = ApplicationContext.builder()
                .properties(Map.of("idempotency.enabled", true)).start()) {
            assertThat(context.containsBean(ScheduledPurge.class)).isFalse();
        }
    }

    @Test
    void anInvalidIntervalFailsTheStartNamingTheKey() {
        assertThatThrownBy(() -> start(Map.of("idempotency.purge.interval", "0s"), database()).close())
                .hasStackTraceContaining("idempotency.purge.interval must be positive");
    }

    private static ApplicationContext start(Map<String, Object> extra, DataSource database) {
        Map<String, Object> properties = new HashMap<>(Map.of("idempotency.enabled", true));
        properties.putAll(extra);
        return ApplicationContext.builder().properties(properties).singletons(database).start();
    }

    private static JdbcDataSource database() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:purge-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return dataSource;
    }

    private static RecordKey key(String key) {
        return new RecordKey("tenant", "POST", "/orders", key);
    }

    private static long rows(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection();
             ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM \"" + JdbcStore.DEFAULT_TABLE + "\"")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
