package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.framework.internal.ScheduledPurge;
import dev.idempotency.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The purge of the application's store, scheduled by default ({@code idempotency.purge.*}). */
class PurgeByDefaultTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class))
            .withPropertyValues("idempotency.enabled=true");

    @Test
    void anExpiredRecordGoesOnItsOwnAndALiveOneStays() {
        JdbcDataSource database = database();
        JdbcStore seed = JdbcStore.builder(database).build();
        seed.createTableIfMissing();
        Instant twoHoursAgo = Instant.now().minus(Duration.ofHours(2));
        seed.reserve(key("expired"), "f".repeat(64), twoHoursAgo, Duration.ofSeconds(30), Duration.ofHours(1));
        seed.reserve(key("live"), "f".repeat(64), Instant.now(), Duration.ofSeconds(30), Duration.ofHours(1));
        runner.withBean(DataSource.class, () -> database)
                .withPropertyValues("idempotency.purge.interval=100ms", "idempotency.purge.initial-delay=0s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(ScheduledPurge.class).isScheduled()).isTrue();
                    await().atMost(Duration.ofSeconds(30)).until(() -> rows(database) == 1);
                    assertThat(seed.find(key("live"), Instant.now())).isPresent();
                });
    }

    @Test
    void offWithEnabledFalseAndNoneOverTheInMemoryFallback() {
        JdbcDataSource database = database();
        runner.withBean(DataSource.class, () -> database).withPropertyValues("idempotency.purge.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ScheduledPurge.class));
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ScheduledPurge.class));
    }

    @Test
    void anInvalidIntervalFailsTheStartNamingTheKey() {
        runner.withBean(DataSource.class, PurgeByDefaultTest::database).withPropertyValues("idempotency.purge.interval=0s")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("idempotency.purge.interval must be positive"));
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
