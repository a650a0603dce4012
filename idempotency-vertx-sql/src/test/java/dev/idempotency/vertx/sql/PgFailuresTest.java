package dev.idempotency.vertx.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import io.vertx.core.VertxException;
import io.vertx.core.http.ConnectionPoolTooBusyException;
import io.vertx.pgclient.PgException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The busy cases of {@link PgFailures}, on the exceptions Vert.x 5's SQL client fails with. No database. */
class PgFailuresTest {

    private static PgException pg(String state, String message) {
        return new PgException(message, "ERROR", state, null);
    }

    private static Reason reasonOf(Throwable failure) {
        Throwable translated = PgFailures.translate(failure, "app.idempotency_keys");
        return translated instanceof StorageUnavailableException unavailable ? unavailable.reason() : null;
    }

    @Test
    void aCancelledStatementIsBusy() {
        assertThat(reasonOf(pg("57014", "canceling statement due to statement timeout"))).isEqualTo(Reason.BUSY);
        assertThat(reasonOf(pg("57014", "canceling statement due to user request"))).isEqualTo(Reason.BUSY);
        assertThat(reasonOf(pg("53300", "sorry, too many clients already"))).isEqualTo(Reason.BUSY);
    }

    @Test
    void aLockTimeoutIsBusy() {
        assertThat(reasonOf(pg("55P03", "canceling statement due to lock timeout"))).isEqualTo(Reason.BUSY);
    }

    @Test
    void bothPoolTimeoutsAndAFullWaitQueueAreBusy() {
        // Pool.preparedQuery/query on the pool:
        assertThat(reasonOf(new VertxException("Timeout waiting for connection", true))).isEqualTo(Reason.BUSY);
        // Pool.getConnection(), withTransaction, the atomic mode: Completable.fail("Timeout").
        @SuppressWarnings("removal")
        Throwable acquire = new io.vertx.core.impl.NoStackTraceThrowable("Timeout");
        assertThat(reasonOf(acquire)).isEqualTo(Reason.BUSY);
        assertThat(reasonOf(new ConnectionPoolTooBusyException("Connection pool reached max wait queue size of 1")))
                .isEqualTo(Reason.BUSY);
        assertThat(reasonOf(new java.util.concurrent.TimeoutException())).isEqualTo(Reason.BUSY);
    }

    @Test
    void busyBehindACompletionExceptionOrACauseIsStillBusy() {
        assertThat(reasonOf(new CompletionException(pg("57014", "canceling statement due to statement timeout"))))
                .isEqualTo(Reason.BUSY);
        assertThat(reasonOf(new IllegalStateException("wrapped", pg("55P03", "lock timeout"))))
                .isEqualTo(Reason.BUSY);
    }

    @Test
    void theBusyMessageSaysBusyAndKeepsTheCause() {
        PgException cancelled = pg("57014", "canceling statement due to statement timeout");
        Throwable translated = PgFailures.translate(cancelled, "idempotency_keys");
        assertThat(translated).isInstanceOf(StorageUnavailableException.class)
                .hasMessageContaining("busy").hasCause(cancelled);
    }

    @Test
    void aTableWithoutTheCallerColumnIsNotProvisionedAndTheMessageNamesTheMigration() {
        PgException missing = pg("42703", "column \"caller\" does not exist");
        Throwable translated = PgFailures.translate(new CompletionException(missing), "app.idempotency_keys");
        assertThat(translated).isInstanceOf(StorageUnavailableException.class).hasCause(missing)
                .hasMessage("Idempotency table app.idempotency_keys has no column caller: apply "
                        + "db/idempotency/postgresql/V4__idempotency_keys_caller.sql");
        assertThat(((StorageUnavailableException) translated).reason()).isEqualTo(Reason.NOT_PROVISIONED);
        assertThat(reasonOf(pg("42703", "column \"owner\" does not exist"))).isNull();
    }

    @Test
    void otherTimeoutsAndStatesAreNotBusy() {
        assertThat(reasonOf(new VertxException("Timeout while reading", true))).isNull();
        assertThat(reasonOf(new VertxException("boom", true))).isNull();
        assertThat(reasonOf(pg("40001", "could not serialize access"))).isNull();
        assertThat(reasonOf(pg("23505", "duplicate key value violates unique constraint"))).isNull();
        PgException other = pg("22P02", "invalid input syntax");
        assertThat(PgFailures.translate(other, "idempotency_keys")).isSameAs(other);
    }
}
