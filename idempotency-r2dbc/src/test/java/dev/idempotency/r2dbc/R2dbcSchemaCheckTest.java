package dev.idempotency.r2dbc;

import static dev.idempotency.r2dbc.R2dbcTestDatabase.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link R2dbcStore#verifySchema()} and {@link R2dbcStore#createTableIfMissing()} on real databases. */
class R2dbcSchemaCheckTest {

    @ParameterizedTest
    @EnumSource(R2dbcStore.Dialect.class)
    void aMissingTableFailsTheCheckWithTheHintAndCreatingItPassesIt(R2dbcStore.Dialect dialect) {
        try (R2dbcTestDatabase db = R2dbcTestDatabase.of(dialect)) {
            R2dbcStore store = R2dbcStore.create(db.pool("check", 2));

            assertThat(catchThrowable(() -> await(store.verifySchema()))).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("Idempotency schema check failed: table idempotency_keys does not exist")
                    .hasMessageContaining("apply the migrations in db/idempotency/")
                    .hasMessageContaining("createTableIfMissing()");

            await(store.createTableIfMissing());
            await(store.createTableIfMissing()); // again: nothing to do
            await(store.verifySchema());
        }
    }

    @ParameterizedTest
    @EnumSource(R2dbcStore.Dialect.class)
    void aTableMissingColumnsNamesThem(R2dbcStore.Dialect dialect) {
        try (R2dbcTestDatabase db = R2dbcTestDatabase.of(dialect)) {
            R2dbcStore store = R2dbcStore.create(db.pool("columns", 2));
            await(store.createTableIfMissing());
            db.execute("ALTER TABLE idempotency_keys DROP COLUMN format_version, DROP COLUMN response_body");

            assertThat(catchThrowable(() -> await(store.verifySchema()))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("has no columns response_body, format_version")
                    .hasMessageContaining("apply the migrations in db/idempotency/");
        }
    }

    @ParameterizedTest
    @EnumSource(R2dbcStore.Dialect.class)
    void aTableWithoutTheCallerNamesTheCallerMigration(R2dbcStore.Dialect dialect) {
        try (R2dbcTestDatabase db = R2dbcTestDatabase.of(dialect)) {
            R2dbcStore store = R2dbcStore.create(db.pool("caller", 2));
            db.execute(resource("db/idempotency/" + (dialect == R2dbcStore.Dialect.POSTGRESQL ? "postgresql" : "mariadb")
                    + "/V1__idempotency_keys.sql"));

            assertThat(catchThrowable(() -> await(store.verifySchema()))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("table idempotency_keys has no column caller")
                    .hasMessageContaining("V4__idempotency_keys_caller.sql");

            await(store.createTableIfMissing()); // adds it back (V4)
            await(store.verifySchema());
        }
    }

    private static String resource(String name) {
        try (InputStream in = R2dbcSchemaCheckTest.class.getClassLoader().getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
