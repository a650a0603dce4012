package dev.idempotency.vertx.sql;

import static dev.idempotency.vertx.sql.PgTestDatabase.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotency.core.store.StorageUnavailableException;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.pgclient.PgConnectOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link PgStore#verifySchema()} on real PostgreSQL: each test in a schema of its own. */
class PgSchemaCheckTest {

    private PgTestDatabase db;

    @BeforeEach
    void schema() {
        db = new PgTestDatabase();
    }

    @AfterEach
    void drop() {
        db.close();
    }

    @Test
    void aMissingTableFailsTheCheckNamingIt() {
        PgStore store = PgStore.create(db.pool("check-missing", 1));

        assertThat(catchThrowable(() -> await(store.verifySchema()))).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("Idempotency schema check failed: table idempotency_keys does not exist")
                .hasMessageContaining("createTableIfMissing()");
    }

    @Test
    void aTableWithoutTheCallerNamesTheCallerMigration() {
        db.execute(resource("db/idempotency/postgresql/V1__idempotency_keys.sql"));
        PgStore store = PgStore.create(db.pool("check-v1", 1));

        assertThat(catchThrowable(() -> await(store.verifySchema()))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("table idempotency_keys has no column caller")
                .hasMessageContaining("V4__idempotency_keys_caller.sql");

        db.execute(resource("db/idempotency/postgresql/V4__idempotency_keys_caller.sql"));
        await(store.verifySchema());
    }

    @Test
    void aTableMissingOtherColumnsNamesThem() {
        PgStore store = PgStore.create(db.pool("check-columns", 1));
        await(store.createTableIfMissing());
        db.execute("ALTER TABLE idempotency_keys DROP COLUMN format_version, DROP COLUMN response_body");

        assertThat(catchThrowable(() -> await(store.verifySchema()))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has no columns response_body, format_version")
                .hasMessageContaining("apply the migrations in db/idempotency/");
    }

    @Test
    void aCompleteTablePassesUnderItsQualifiedNameToo() {
        PgStore store = PgStore.create(db.pool("check-complete", 1));
        await(store.createTableIfMissing());

        await(store.verifySchema());
        await(PgStore.builder(db.pool("check-qualified", 1)).tableName(db.schema + ".idempotency_keys").build()
                .verifySchema());
        assertThat(catchThrowable(() -> await(PgStore.builder(db.pool("check-other", 1))
                .tableName("public.idempotency_keys_" + db.schema).build().verifySchema())))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("does not exist");
    }

    @Test
    void aVerticleThatStartsAfterTheCheckIsNotDeployedWithoutTheTable() {
        PgStore store = PgStore.create(db.pool("check-verticle", 1));
        ServerAfterCheck verticle = new ServerAfterCheck(store);

        assertThat(catchThrowable(() -> await(db.vertx.deployVerticle(verticle))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("does not exist");
        assertThat(verticle.server).as("no server started").isNull();

        await(store.createTableIfMissing());
        ServerAfterCheck started = new ServerAfterCheck(store);
        await(db.vertx.deployVerticle(started));
        assertThat(started.server.actualPort()).isPositive();
    }

    /** The adapter-vertx README's start: the server only after the schema check. */
    private static final class ServerAfterCheck extends VerticleBase {
        private final PgStore store;
        private volatile HttpServer server;

        ServerAfterCheck(PgStore store) {
            this.store = store;
        }

        @Override
        public Future<?> start() {
            return Future.fromCompletionStage(store.verifySchema())
                    .compose(checked -> vertx.createHttpServer().requestHandler(r -> r.response().end()).listen(0))
                    .onSuccess(listening -> server = listening);
        }
    }

    @Test
    void anUnreachableDatabaseIsNotASchemaVerdict() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        PgConnectOptions closed = new PgConnectOptions(PgTestDatabase.server()).setPort(port);
        PgStore store = PgStore.create(db.pool("check-closed", 1, closed));

        Throwable failure = catchThrowable(() -> await(store.verifySchema()));
        assertThat(failure).isInstanceOf(StorageUnavailableException.class);
        assertThat(((StorageUnavailableException) failure).reason())
                .isEqualTo(StorageUnavailableException.Reason.UNREACHABLE);
    }

    private static String resource(String name) {
        try (InputStream in = PgSchemaCheckTest.class.getClassLoader().getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
