package dev.idempotency.framework.internal;

import dev.idempotency.framework.PurgeSettings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Store;
import dev.idempotency.jdbc.JdbcStore;
import dev.idempotency.testkit.internal.PostgresTestSchema;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.LoggerFactory;

/** The purge an integration schedules, over a real JDBC store. */
class ScheduledPurgeTest {

    private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration TTL = Duration.ofHours(1);

    private JdbcDataSource database;
    private JdbcStore store;

    @BeforeEach
    void aStoreWithThreeExpiredRecordsAndOneLive() {
        database = new JdbcDataSource();
        database.setURL("jdbc:h2:mem:purge-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        store = JdbcStore.builder(database).build();
        store.createTableIfMissing();
        for (int i = 0; i < 3; i++) {
            store.reserve(key("expired-" + i), "f".repeat(64), T, Duration.ofSeconds(30), TTL);
        }
        store.reserve(key("live"), "f".repeat(64), T.plus(Duration.ofMinutes(90)), Duration.ofSeconds(30), TTL);
    }

    @Test
    void theScheduleDeletesTheExpiredRecordsOnItsOwnOnTheGivenClock() throws SQLException {
        PurgeSettings settings = new PurgeSettings();
        settings.setInitialDelay(Duration.ZERO);
        settings.setInterval(Duration.ofMillis(50));
        settings.setBatchSize(2);
        Clock twoHoursLater = Clock.fixed(T.plus(Duration.ofHours(2)), ZoneOffset.UTC);
        try (ScheduledPurge purge = ScheduledPurge.start(settings, store, twoHoursLater)) {
            assertThat(purge.isScheduled()).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> rows() == 1);
        }
        assertThat(store.find(key("live"), T.plus(Duration.ofHours(2)))).isPresent();
    }

    @Test
    void anAsyncStoreIsPurgedTheSameWay() throws SQLException {
        PurgeSettings settings = new PurgeSettings();
        settings.setInitialDelay(Duration.ZERO);
        settings.setInterval(Duration.ofMillis(50));
        Clock twoHoursLater = Clock.fixed(T.plus(Duration.ofHours(2)), ZoneOffset.UTC);
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try (ScheduledPurge purge = ScheduledPurge.start(settings, AsyncStore.of(store, executor), twoHoursLater)) {
            assertThat(purge.isScheduled()).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> rows() == 1);
        } finally {
            executor.shutdown();
        }
        assertThat(store.find(key("live"), T.plus(Duration.ofHours(2)))).isPresent();
    }

    @Test
    void offItSchedulesNothingAndPurgesNothing() throws SQLException {
        PurgeSettings settings = new PurgeSettings();
        settings.setEnabled(false);
        try (ScheduledPurge purge = ScheduledPurge.start(settings, store, Clock.fixed(T.plus(Duration.ofDays(1)), ZoneOffset.UTC))) {
            assertThat(purge.isScheduled()).isFalse();
            assertThat(purge.runOnce()).isZero();
        }
        assertThat(rows()).isEqualTo(4);
    }

    @Test
    void noneOverAStoreThatExpiresItsRecordsItself() throws SQLException {
        Store expiring = (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class},
                (proxy, method, args) -> method.getName().equals("expiresRecordsItself")
                        ? Boolean.TRUE : method.invoke(store, args));
        PurgeSettings settings = new PurgeSettings();
        settings.setInitialDelay(Duration.ZERO);
        try (ScheduledPurge purge = ScheduledPurge.start(settings, expiring, Clock.fixed(T.plus(Duration.ofDays(1)), ZoneOffset.UTC))) {
            assertThat(purge.isScheduled()).isFalse();
        }
        assertThat(rows()).isEqualTo(4);
    }

    @Test
    void underRowLevelSecurityTheStartWarnsThatThePurgeMayDeleteNothing() {
        Logger logger = (Logger) LoggerFactory.getLogger(ScheduledPurge.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        logger.addAppender(logged);
        PurgeSettings settings = new PurgeSettings();
        try (PostgresTestSchema schema = new PostgresTestSchema()) {
            PGSimpleDataSource postgres = new PGSimpleDataSource();
            postgres.setURL(schema.url());
            postgres.setUser(PostgresTestSchema.USER);
            postgres.setPassword(PostgresTestSchema.PASSWORD);
            JdbcStore secured = JdbcStore.builder(postgres).rowLevelSecurity(true).build();
            ScheduledPurge.start(settings, store, Clock.systemUTC()).close();
            ScheduledPurge.start(settings, secured, Clock.systemUTC()).close();
        } finally {
            logger.detachAppender(logged);
        }
        assertThat(logged.list).filteredOn(event -> event.getLevel() == Level.WARN).singleElement()
                .satisfies(event -> assertThat(event.getFormattedMessage()).startsWith("Row-level security is on")
                        .contains("idempotency.purge.enabled=false"));
    }

    @Test
    void theDefaultsAreFiveMinutesOneMinuteAndAThousand() {
        PurgeSettings settings = new PurgeSettings();
        assertThat(settings.isEnabled()).isTrue();
        assertThat(settings.getInterval()).isEqualTo(Duration.ofMinutes(5));
        assertThat(settings.getInitialDelay()).isEqualTo(Duration.ofMinutes(1));
        assertThat(settings.getBatchSize()).isEqualTo(1000);
    }

    @Test
    void anInvalidSettingFailsNamingTheKeys() {
        PurgeSettings settings = new PurgeSettings();
        settings.setInterval(Duration.ZERO);
        assertThatThrownBy(() -> ScheduledPurge.start(settings, store, Clock.systemUTC()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("idempotency.purge.interval must be positive, idempotency.purge.initial-delay not "
                        + "negative and idempotency.purge.batch-size at least 1; they are PT0S, PT1M and 1000");
        PurgeSettings batch = new PurgeSettings();
        batch.setBatchSize(0);
        assertThatThrownBy(() -> ScheduledPurge.start(batch, store, Clock.systemUTC()))
                .hasMessageContaining("they are PT5M, PT1M and 0");
    }

    private static RecordKey key(String key) {
        return new RecordKey("tenant", "POST", "/orders", key);
    }

    private int rows() throws SQLException {
        try (Connection c = database.getConnection();
             ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM \"" + JdbcStore.DEFAULT_TABLE + "\"")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
