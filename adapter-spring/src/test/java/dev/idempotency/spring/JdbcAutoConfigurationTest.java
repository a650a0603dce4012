package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Mode;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.Store;
import dev.idempotency.jdbc.JdbcStore;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;

/**
 * The {@code JdbcStore} over the application's {@code DataSource}: built when there is one and no
 * store bean, with the {@code idempotency.jdbc.*} settings, and its schema checked at start.
 */
class JdbcAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, IdempotencyAutoConfiguration.class))
            .withPropertyValues("idempotency.enabled=true");

    /** These tests' H2 databases are in memory: the default initialize-schema would create the table. */
    private static final String NO_TABLE_CREATED = "idempotency.jdbc.initialize-schema=never";

    private static JdbcDataSource databaseWithTable(String table) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:spring-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        if (table != null) {
            JdbcStore.builder(dataSource).tableName(table).build().createTableIfMissing();
        }
        return dataSource;
    }

    @Test
    void aDataSourceAndNoStoreBeanGiveAJdbcStore() {
        JdbcDataSource dataSource = databaseWithTable(JdbcStore.DEFAULT_TABLE);
        runner.withBean(DataSource.class, () -> dataSource).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(JdbcStore.class);
            assertThat(context.getBean(Store.class)).isInstanceOf(JdbcStore.class);
            assertThat(context).hasSingleBean(IdempotencyEngine.class);
        });
    }

    @Test
    void springBootsOwnDataSourceFromSpringDatasourceUrlIsUsed() {
        String url = "jdbc:h2:mem:boot-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        JdbcDataSource seed = new JdbcDataSource();
        seed.setURL(url);
        seed.setUser("sa"); // Boot's default user for an embedded database
        JdbcStore.builder(seed).build().createTableIfMissing();
        runner.withPropertyValues("spring.datasource.url=" + url).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(JdbcStore.class);
        });
    }

    @Test
    void theAtomicModeStartsOverTheJdbcStore() {
        JdbcDataSource dataSource = databaseWithTable(JdbcStore.DEFAULT_TABLE);
        runner.withBean(DataSource.class, () -> dataSource).withPropertyValues("idempotency.mode=atomic")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(IdempotencyEngine.class).config().mode()).isEqualTo(Mode.ATOMIC);
                });
    }

    @Test
    void aMissingTableFailsTheStartNamingIt() {
        JdbcDataSource dataSource = databaseWithTable(null);
        runner.withBean(DataSource.class, () -> dataSource).withPropertyValues(NO_TABLE_CREATED).run(context -> assertThat(context).hasFailed()
                .getFailure().hasStackTraceContaining("Idempotency schema check failed: table")
                .hasStackTraceContaining(JdbcStore.DEFAULT_TABLE + " does not exist"));
    }

    @Test
    void withoutTheSchemaCheckAMissingTableStartsAnyway() {
        JdbcDataSource dataSource = databaseWithTable(null);
        runner.withBean(DataSource.class, () -> dataSource)
                .withPropertyValues("idempotency.jdbc.verify-schema=false", NO_TABLE_CREATED)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(JdbcStore.class);
                });
    }

    @Test
    void anInMemoryDatabaseGetsTheTableByDefaultAndAnotherOnlyWithAlways() {
        JdbcDataSource memory = databaseWithTable(null);
        runner.withBean(DataSource.class, () -> memory).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(IdempotencySchemaInitializer.class).creates()).isTrue();
        });
        // a file database is not embedded in Boot's sense: its table is the migrations' business
        JdbcDataSource file = new JdbcDataSource();
        file.setURL("jdbc:h2:file:./target/h2-" + UUID.randomUUID());
        runner.withBean(DataSource.class, () -> file).run(context -> assertThat(context).hasFailed()
                .getFailure().hasStackTraceContaining(JdbcStore.DEFAULT_TABLE + " does not exist"));
        runner.withBean(DataSource.class, () -> file).withPropertyValues("idempotency.jdbc.initialize-schema=always")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void theApplicationsOwnStoreGetsNoInitializer() {
        JdbcDataSource dataSource = databaseWithTable(null);
        runner.withBean(Store.class, () -> JdbcStore.builder(dataSource).build())
                .withPropertyValues("idempotency.jdbc.verify-schema=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencySchemaInitializer.class));
    }

    @Test
    void theSchemaCheckAlsoCoversTheApplicationsOwnJdbcStoreBean() {
        JdbcDataSource dataSource = databaseWithTable(null);
        runner.withBean(Store.class, () -> JdbcStore.builder(dataSource).build()).run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining(JdbcStore.DEFAULT_TABLE + " does not exist"));
    }

    @Test
    void theTableNameIsTheConfiguredOne() {
        JdbcDataSource dataSource = databaseWithTable("app_idem");
        runner.withBean(DataSource.class, () -> dataSource).withPropertyValues("idempotency.jdbc.table-name=app_idem")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(JdbcStore.class));
        runner.withBean(DataSource.class, () -> dataSource).withPropertyValues(NO_TABLE_CREATED)
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining("does not exist"));
    }

    @Test
    void anApplicationStoreBeanOrJdbcEnabledFalseMeansNoJdbcStore() {
        JdbcDataSource dataSource = databaseWithTable(JdbcStore.DEFAULT_TABLE);
        InMemoryStore own = new InMemoryStore();
        runner.withBean(DataSource.class, () -> dataSource).withBean(Store.class, () -> own)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(JdbcStore.class);
                    assertThat(context.getBean(Store.class)).isSameAs(own);
                });
        runner.withBean(DataSource.class, () -> dataSource).withPropertyValues("idempotency.jdbc.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(Store.class);
                    assertThat(context).hasSingleBean(IdempotencyEngine.class);
                });
    }

    @Test
    void theAtomicTransactionIsJoinedWhoeverBuiltTheEngineAndItsStore() {
        JdbcDataSource dataSource = databaseWithTable(JdbcStore.DEFAULT_TABLE);
        WebApplicationContextRunner web = new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class))
                .withPropertyValues("idempotency.enabled=true", "idempotency.mode=atomic")
                .withBean(DataSource.class, () -> dataSource);
        web.run(context -> assertThat(filter(context).transactions()).isInstanceOf(SpringTransactionJoin.class));
        // the application's own store or engine: bound to the data source the reservation came from
        web.withBean(Store.class, () -> JdbcStore.builder(databaseWithTable(JdbcStore.DEFAULT_TABLE)).build())
                .run(context -> assertThat(filter(context).transactions()).isInstanceOf(SpringTransactionJoin.class));
        IdempotencyEngine own = new IdempotencyEngine(new InMemoryStore(), dev.idempotency.core.IdempotencyConfig.defaults());
        web.withBean(IdempotencyEngine.class, () -> own)
                .run(context -> assertThat(filter(context).transactions()).isInstanceOf(SpringTransactionJoin.class));
        own.close();
    }

    private static IdempotencyFilter filter(org.springframework.context.ApplicationContext context) {
        assertThat(context.getBeansOfType(FilterRegistrationBean.class)).hasSize(1);
        return (IdempotencyFilter) context.getBean(FilterRegistrationBean.class).getFilter();
    }

    @Test
    void theNamedDataSourceIsTheOneUsed() {
        JdbcDataSource withTable = databaseWithTable(JdbcStore.DEFAULT_TABLE);
        JdbcDataSource without = databaseWithTable(null);
        runner.withBean("main", DataSource.class, () -> without, bd -> bd.setPrimary(true))
                .withBean("records", DataSource.class, () -> withTable)
                .withPropertyValues("idempotency.jdbc.datasource=records")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(JdbcStore.class));
        // unnamed, the primary one is used, and it has no table
        runner.withBean("main", DataSource.class, () -> without, bd -> bd.setPrimary(true))
                .withBean("records", DataSource.class, () -> withTable).withPropertyValues(NO_TABLE_CREATED)
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining("does not exist"));
    }
}
