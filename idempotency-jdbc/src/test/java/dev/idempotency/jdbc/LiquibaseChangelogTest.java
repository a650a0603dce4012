package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.exception.CommandExecutionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shipped Liquibase changelog, included from an application's master changelog and run by
 * Liquibase itself on a throwaway PostgreSQL schema.
 */
class LiquibaseChangelogTest {

    private static TestDatabase db;
    private static DataSource pool;

    @BeforeAll
    static void createSchema() {
        System.setProperty("liquibase.analytics.enabled", "false");
        db = TestDatabase.postgres();
        pool = db.pool("liquibase", 2);
        update(pool, db.name, "db/app/changelog.xml");
    }

    @AfterAll
    static void dropSchema() {
        db.close();
    }

    @Test
    void theCallerIsPartOfThePrimaryKey() throws SQLException {
        assertThat(query("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'idempotency_keys_pkey' "
                + "AND connamespace = current_schema()::regnamespace"))
                .containsExactly("PRIMARY KEY (key, tenant_id, caller, method, path)");
    }

    @Test
    void theTableItsIndexAndTheFillfactorArePresent() throws SQLException {
        assertThat(MigrationChecks.tableExists(pool, "app_orders")).isTrue();
        assertThat(MigrationChecks.tableExists(pool, "idempotency_keys")).isTrue();
        assertThat(query("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
                + "AND tablename = 'idempotency_keys' ORDER BY indexname"))
                .containsExactly("idempotency_keys_expires_at_idx", "idempotency_keys_pkey");
        assertThat(MigrationChecks.reloptions(pool, db.name + ".idempotency_keys")).isEqualTo("fillfactor=70");
        assertThat(query("SELECT col_description('idempotency_keys'::regclass, 1)"))
                .containsExactly("The client's Idempotency-Key, unquoted (1-255 visible ASCII characters)");
    }

    @Test
    void theChangeSetsAreRecordedUnderTheChangelogsLogicalPath() throws SQLException {
        assertThat(query("SELECT id || ' ' || filename FROM databasechangelog ORDER BY orderexecuted"))
                .containsExactly("app-1 db/app/changelog.xml",
                        "idempotency-keys-1 db/idempotency/liquibase/idempotency-changelog.xml",
                        "idempotency-keys-fillfactor db/idempotency/liquibase/idempotency-changelog.xml",
                        "idempotency-keys-caller db/idempotency/liquibase/idempotency-changelog.xml");
    }

    @Test
    void aJdbcStoreWorksOnTheSchema() {
        MigrationChecks.storeWorks(pool);
    }

    @Test
    void aSecondUpdateHasNothingToDo() throws SQLException {
        update(pool, db.name, "db/app/changelog.xml");

        assertThat(query("SELECT count(*) FROM databasechangelog")).containsExactly("4");
    }

    @Test
    void anotherDatabaseHaltsOnThePrecondition() {
        try (TestDatabase mariadb = TestDatabase.mariadb()) {
            DataSource other = mariadb.pool("liquibase-mariadb", 1);

            assertThatThrownBy(() -> update(other, mariadb.name, "db/idempotency/liquibase/idempotency-changelog.xml"))
                    .hasCauseInstanceOf(CommandExecutionException.class)
                    .cause().hasMessageContaining("idempotency-changelog.xml is for PostgreSQL only");
        }
    }

    private static void update(DataSource dataSource, String schema, String changelog) {
        try (Connection c = dataSource.getConnection()) {
            Database database = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
            database.setDefaultSchemaName(schema);
            new CommandScope(UpdateCommandStep.COMMAND_NAME)
                    .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                    .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, changelog)
                    .execute();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        } catch (liquibase.exception.LiquibaseException e) {
            throw new IllegalStateException("Liquibase update of " + changelog + " failed", e);
        }
    }

    private static List<String> query(String sql) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(sql);
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        return rows;
    }
}
