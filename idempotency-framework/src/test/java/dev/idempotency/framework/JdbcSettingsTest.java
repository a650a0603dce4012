package dev.idempotency.framework;

import dev.idempotency.framework.internal.JdbcSchemaCheck;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.framework.SqlTableSettings.InitializeSchema;
import dev.idempotency.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

class JdbcSettingsTest {

    @Test
    void initializeSchemaTakesItsValuesInAnyCaseAndRefusesOthersNamingTheChoices() {
        JdbcSettings settings = new JdbcSettings();
        assertThat(settings.getInitializeSchema()).isEqualTo(InitializeSchema.EMBEDDED);
        settings.setInitializeSchema(" Always ");
        assertThat(settings.getInitializeSchema()).isEqualTo(InitializeSchema.ALWAYS);
        assertThatThrownBy(() -> settings.setInitializeSchema("sometimes"))
                .hasMessage("idempotency.jdbc.initialize-schema must be embedded, always or never, not 'sometimes'");
    }

    @Test
    void onlyEmbeddedAsksWhetherTheDatabaseIsEmbedded() {
        assertThat(InitializeSchema.ALWAYS.creates(() -> {
            throw new AssertionError("asked");
        })).isTrue();
        assertThat(InitializeSchema.NEVER.creates(() -> {
            throw new AssertionError("asked");
        })).isFalse();
        assertThat(InitializeSchema.EMBEDDED.creates(() -> true)).isTrue();
        assertThat(InitializeSchema.EMBEDDED.creates(() -> false)).isFalse();
    }

    @Test
    void theStoreIsBuiltWithTheSettingsAndTheSchemaCheckNamesAMissingTable() throws Exception {
        JdbcDataSource database = new JdbcDataSource();
        database.setURL("jdbc:h2:mem:settings-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        JdbcSettings settings = new JdbcSettings();
        settings.setTableName("app_keys");
        settings.setStatementTimeout(Duration.ofSeconds(2));
        JdbcStore store = settings.toStoreBuilder(database).build();
        assertThatThrownBy(() -> new JdbcSchemaCheck().check(store)).hasMessageContaining("table app_keys does not exist")
                .hasMessageEndingWith("or set idempotency.jdbc.initialize-schema=always to create it at start");
        store.createTableIfMissing();
        new JdbcSchemaCheck().check(store);
        try (Connection c = database.getConnection(); Statement statement = c.createStatement()) {
            statement.execute("ALTER TABLE \"app_keys\" DROP COLUMN \"response_headers\"");
        }
        assertThatThrownBy(() -> new JdbcSchemaCheck().check(store)).as("creating the table would not help")
                .hasMessageContaining("has no column response_headers").hasMessageNotContaining("initialize-schema");
        assertThat(settings.isVerifySchema()).isTrue();
        assertThat(settings.isEnabled()).isTrue();
    }
}
