package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Flyway recipes, run by Flyway itself beside an application migration of its own
 * ({@code db/app/V1__app.sql}), each on a throwaway schema (PostgreSQL) or database (MariaDB).
 */
abstract class AbstractFlywayRecipesTest {

    static final String APP_LOCATION = "classpath:db/app";
    static final String IDEMPOTENCY_HISTORY = "flyway_idempotency_history";

    TestDatabase db;
    DataSource pool;

    abstract TestDatabase database();

    /** The folder of our migrations for this database, under {@code db/idempotency/}. */
    abstract String dialectFolder();

    /** Our migrations copied into an application, renumbered after its V1: shipped resource → new name. */
    abstract Map<String, String> renumberedCopies();

    /** What else the migrations must have left in place (PostgreSQL: the fillfactor). */
    void assertIdempotencyTableDetails() throws SQLException {
    }

    @BeforeEach
    void createDatabase() {
        db = database();
        pool = db.pool("flyway", 2);
    }

    @AfterEach
    void dropDatabase() {
        db.close();
    }

    /** The application's own Flyway: default history table, its own location. */
    Flyway applicationFlyway(String... locations) {
        return Flyway.configure().dataSource(pool).schemas(db.name).locations(locations).load();
    }

    /** Recipe B: a second Flyway, its own history table, only our location, after the application's. */
    Flyway idempotencyFlyway() {
        return Flyway.configure().dataSource(pool).schemas(db.name)
                .table(IDEMPOTENCY_HISTORY)
                .locations("classpath:db/idempotency/" + dialectFolder())
                .baselineOnMigrate(true)   // the schema already holds the application's tables
                .baselineVersion("0")      // below our V1, so V1 still runs
                .load();
    }

    @Test
    void recipeB_aSecondFlywayWithItsOwnHistoryTableAppliesBoth() throws Exception {
        MigrateResult app = applicationFlyway(APP_LOCATION).migrate();
        MigrateResult ours = idempotencyFlyway().migrate();

        assertThat(app.migrationsExecuted).isEqualTo(1);
        assertThat(ours.migrationsExecuted).isEqualTo(renumberedCopies().size());
        assertThat(MigrationChecks.appliedVersions(pool, "flyway_schema_history")).containsExactly("1 app");
        assertThat(MigrationChecks.appliedVersions(pool, IDEMPOTENCY_HISTORY)).first().asString().startsWith("0 ");
        assertThat(MigrationChecks.appliedVersions(pool, IDEMPOTENCY_HISTORY)).hasSize(1 + renumberedCopies().size())
                .element(1).isEqualTo("1 idempotency keys");
        assertThat(MigrationChecks.tableExists(pool, "app_orders")).isTrue();
        assertIdempotencyTableDetails();
        MigrationChecks.storeWorks(pool);

        // The next start: both validate against their own history and have nothing to do.
        assertThat(applicationFlyway(APP_LOCATION).migrate().migrationsExecuted).isZero();
        assertThat(idempotencyFlyway().migrate().migrationsExecuted).isZero();
    }

    @Test
    void recipeB_withoutBaselineTheSecondFlywayRefusesTheApplicationsSchema() {
        applicationFlyway(APP_LOCATION).migrate();
        Flyway withoutBaseline = Flyway.configure().dataSource(pool).schemas(db.name).table(IDEMPOTENCY_HISTORY)
                .locations("classpath:db/idempotency/" + dialectFolder()).load();

        assertThatThrownBy(withoutBaseline::migrate).isInstanceOf(FlywayException.class)
                .hasMessageContaining("non-empty schema").hasMessageContaining("but no schema history table");
    }

    @Test
    void recipeA_copiesRenumberedIntoTheApplicationsOwnMigrations(@TempDir Path migrations) throws Exception {
        copy("db/app/V1__app.sql", migrations.resolve("V1__app.sql"));
        renumberedCopies().forEach((resource, name) -> copy(resource, migrations.resolve(name)));

        MigrateResult result = applicationFlyway("filesystem:" + migrations).migrate();

        assertThat(result.migrationsExecuted).isEqualTo(1 + renumberedCopies().size());
        assertThat(MigrationChecks.appliedVersions(pool, "flyway_schema_history")).hasSize(1 + renumberedCopies().size())
                .startsWith("1 app", "2 idempotency keys");
        assertThat(MigrationChecks.tableExists(pool, "app_orders")).isTrue();
        assertIdempotencyTableDetails();
        MigrationChecks.storeWorks(pool);
    }

    @Test
    void flywaysDefaultLocationHoldsNoneOfOurs() throws Exception {
        // classpath:db/migration, also Spring Boot's default: the jar ships nothing there.
        MigrateResult result = Flyway.configure().dataSource(pool).schemas(db.name).load().migrate();

        assertThat(result.migrationsExecuted).isZero();
        assertThat(MigrationChecks.tableExists(pool, "idempotency_keys")).isFalse();
    }

    @Test
    void oneFlywayOverBothLocationsFailsOnTwoVersionOnes() throws Exception {
        Flyway naive = applicationFlyway(APP_LOCATION, "classpath:db/idempotency/" + dialectFolder());

        assertThatThrownBy(naive::migrate).isInstanceOf(FlywayException.class)
                .hasMessageContaining("Found more than one migration with version 1");
        assertThat(MigrationChecks.tableExists(pool, "app_orders")).isFalse();
        assertThat(MigrationChecks.tableExists(pool, "idempotency_keys")).isFalse();
    }

    private static void copy(String resource, Path target) {
        try (InputStream in = AbstractFlywayRecipesTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            Files.copy(in, target);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
