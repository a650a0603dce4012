package dev.idempotency.quarkus;

import dev.idempotency.core.Mode;
import dev.idempotency.framework.IdempotencySettings;
import dev.idempotency.framework.JdbcSettings;
import dev.idempotency.framework.PurgeSettings;
import io.quarkus.runtime.annotations.StaticInitSafe;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code idempotency.*} settings of a Quarkus application, with the keys every integration
 * shares ({@link IdempotencySettings}, {@link JdbcSettings}, {@link PurgeSettings}). An engine
 * setting left out keeps the engine's own default; {@code order} is not read (the filters run at
 * {@code Priorities.HEADER_DECORATOR}, after authentication). Read while the application is initialised
 * statically too ({@code @StaticInitSafe}): Quarkus REST binds its filters then.
 */
@StaticInitSafe
@ConfigMapping(prefix = IdempotencySettings.PREFIX)
public interface IdempotencyConfiguration {

    /** Whether the filters are installed at all; default false. */
    @WithDefault("false")
    boolean enabled();

    /** Ant-style path patterns covered; default every path. */
    @WithDefault("/**")
    List<String> paths();

    Optional<String> headerName();

    Optional<Set<String>> methods();

    Optional<Boolean> keyRequired();

    Optional<Mode> mode();

    Optional<Duration> ttl();

    Optional<Duration> lease();

    Optional<Boolean> renewLease();

    Optional<Duration> inFlightWait();

    Optional<Duration> inFlightPollInterval();

    Optional<Duration> retryAfter();

    Optional<Integer> maxRequestBodyBytes();

    Optional<Integer> maxStoredBodyBytes();

    Optional<Boolean> runAgainWhenNotStored();

    Optional<Set<String>> replayedHeaders();

    Optional<String> problemTypeBase();

    Optional<Boolean> shareRecordsAcrossCallers();

    /** {@code idempotency.jdbc.*}. */
    Jdbc jdbc();

    /** {@code idempotency.purge.*}. */
    Purge purge();

    /** {@code idempotency.metrics.*}. */
    Metrics metrics();

    /** The JDBC store over the application's Agroal data source ({@link JdbcSettings}). */
    interface Jdbc {
        @WithDefault("true")
        boolean enabled();

        /** The data source's name ({@code quarkus.datasource."name".*}); default the default data source. */
        Optional<String> datasource();

        Optional<String> tableName();

        Optional<Duration> statementTimeout();

        @WithDefault("false")
        boolean rowLevelSecurity();

        Optional<String> tenantSetting();

        @WithDefault("true")
        boolean verifySchema();

        /** {@code embedded} (H2 only), {@code always} or {@code never}. */
        @WithDefault("embedded")
        String initializeSchema();
    }

    /** The scheduled purge of expired records ({@link PurgeSettings}). */
    interface Purge {
        @WithDefault("true")
        boolean enabled();

        @WithDefault("PT5M")
        Duration interval();

        @WithDefault("PT1M")
        Duration initialDelay();

        @WithDefault("1000")
        int batchSize();
    }

    /** The engine's meters, when the application has a Micrometer registry. */
    interface Metrics {
        @WithDefault("true")
        boolean enabled();

        @WithDefault("false")
        boolean pathTag();
    }

    /** These settings as the shared settings class, the engine's defaults where none is given. */
    default IdempotencySettings settings() {
        IdempotencySettings settings = new IdempotencySettings(0) { };
        settings.setEnabled(enabled());
        settings.setPaths(paths());
        headerName().ifPresent(settings::setHeaderName);
        methods().ifPresent(settings::setMethods);
        keyRequired().ifPresent(settings::setKeyRequired);
        mode().ifPresent(settings::setMode);
        ttl().ifPresent(settings::setTtl);
        lease().ifPresent(settings::setLease);
        renewLease().ifPresent(settings::setRenewLease);
        inFlightWait().ifPresent(settings::setInFlightWait);
        inFlightPollInterval().ifPresent(settings::setInFlightPollInterval);
        retryAfter().ifPresent(settings::setRetryAfter);
        maxRequestBodyBytes().ifPresent(settings::setMaxRequestBodyBytes);
        maxStoredBodyBytes().ifPresent(settings::setMaxStoredBodyBytes);
        runAgainWhenNotStored().ifPresent(settings::setRunAgainWhenNotStored);
        replayedHeaders().ifPresent(settings::setReplayedHeaders);
        problemTypeBase().ifPresent(settings::setProblemTypeBase);
        shareRecordsAcrossCallers().ifPresent(settings::setShareRecordsAcrossCallers);
        return settings;
    }

    /** The {@code idempotency.jdbc.*} settings as the shared class; an invalid value throws naming the key. */
    default JdbcSettings jdbcSettings() {
        JdbcSettings settings = new JdbcSettings();
        settings.setEnabled(jdbc().enabled());
        jdbc().datasource().ifPresent(settings::setDatasource);
        jdbc().tableName().ifPresent(settings::setTableName);
        jdbc().statementTimeout().ifPresent(settings::setStatementTimeout);
        settings.setRowLevelSecurity(jdbc().rowLevelSecurity());
        jdbc().tenantSetting().ifPresent(settings::setTenantSetting);
        settings.setVerifySchema(jdbc().verifySchema());
        settings.setInitializeSchema(jdbc().initializeSchema());
        return settings;
    }

    /** The {@code idempotency.purge.*} settings as the shared class. */
    default PurgeSettings purgeSettings() {
        PurgeSettings settings = new PurgeSettings();
        settings.setEnabled(purge().enabled());
        settings.setInterval(purge().interval());
        settings.setInitialDelay(purge().initialDelay());
        settings.setBatchSize(purge().batchSize());
        return settings;
    }
}
