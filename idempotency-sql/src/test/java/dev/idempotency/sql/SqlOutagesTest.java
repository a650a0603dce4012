package dev.idempotency.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import dev.idempotency.sql.SqlConnections.SqlError;
import java.net.ConnectException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** The cause walk every SQL store shares, on a stand-in driver. No database. */
class SqlOutagesTest {

    /** A stand-in driver's database error, with the failure reported after it. */
    static final class DbError extends RuntimeException {
        final String state;
        DbError next;

        DbError(String state, String message) {
            super(message);
            this.state = state;
        }

        DbError(String state, String message, Throwable cause) {
            super(message, cause);
            this.state = state;
        }
    }

    private static final SqlOutages OUTAGES = new SqlOutages(
            t -> t instanceof DbError db ? new SqlError(db.state, 0, db.getMessage()) : null,
            t -> t instanceof ConnectException ? Reason.UNREACHABLE : t instanceof TimeoutException ? Reason.BUSY : null,
            t -> t instanceof DbError db ? db.next : null);

    private static DbError db(String state, String message) {
        return new DbError(state, message);
    }

    private static StorageUnavailableException outage(Throwable failure) {
        return OUTAGES.outage(failure, "app.idempotency_keys");
    }

    @Test
    void aMissingTableAnywhereInTheCausesWins() {
        Throwable failure = new DbError("57014", "cancelled", new DbError("42P01",
                "relation \"idempotency_keys\" does not exist", new ConnectException("refused")));
        assertThat(OUTAGES.reasonOf(failure, "idempotency_keys")).isEqualTo(Reason.NOT_PROVISIONED);
        assertThat(outage(failure)).hasMessage("Idempotency table app.idempotency_keys does not exist: "
                + "relation \"idempotency_keys\" does not exist").hasCause(failure);
    }

    @Test
    void otherwiseTheDeepestCauseTellsTheReasonAndTheDetail() {
        Throwable poolTimeout = new IllegalStateException("wrapped",
                new TimeoutExceptionWithCause("pool timed out", new ConnectException("Connection refused")));
        assertThat(outage(poolTimeout).reason()).isEqualTo(Reason.UNREACHABLE);
        assertThat(outage(poolTimeout)).hasMessage("Idempotency database unreachable: Connection refused");
        Throwable busy = new IllegalStateException("wrapped", new TimeoutException());
        assertThat(outage(busy)).hasMessage("Idempotency database busy: java.util.concurrent.TimeoutException");
    }

    @Test
    void aCauseWithoutAReasonTakesTheFirstOfItsNextFailuresThatHasOne() {
        DbError batch = db("23505", "batch aborted");
        batch.next = db("23505", "duplicate");
        batch.next.next = db("08006", "I/O error");
        batch.next.next.next = batch;
        assertThat(outage(batch)).hasMessage("Idempotency database unreachable: I/O error");
        DbError told = db("53300", "too many clients");
        told.next = db("08006", "I/O error");
        assertThat(outage(told).reason()).as("its own reason first").isEqualTo(Reason.BUSY);
    }

    @Test
    void aCallerlessTableAnywhereInTheCausesNamesTheMigration() {
        Throwable failure = new DbError("42P01", "relation \"idempotency_keys\" does not exist",
                db("42703", "column \"caller\" does not exist"));
        assertThat(outage(failure)).hasMessage("Idempotency table app.idempotency_keys has no column caller: apply "
                + "db/idempotency/postgresql/V4__idempotency_keys_caller.sql");
        assertThat(OUTAGES.reasonOf(db("42703", "column \"colour\" does not exist"), "idempotency_keys")).isNull();
    }

    @Test
    void circularCausesEnd() {
        DbError first = db("23505", "duplicate");
        DbError second = new DbError("23505", "again", first);
        first.initCause(second);
        assertThat(outage(first)).isNull();
    }

    @Test
    void translateUnwrapsAndKeepsWhatIsNoOutageOrAlreadyOne() {
        DbError cancelled = db("57014", "canceling statement due to statement timeout");
        Throwable translated = OUTAGES.translate(new CompletionException(cancelled), "idempotency_keys");
        assertThat(translated).isInstanceOf(StorageUnavailableException.class).hasCause(cancelled);
        StorageUnavailableException already = (StorageUnavailableException) translated;
        assertThat(OUTAGES.translate(new CompletionException(already), "idempotency_keys")).isSameAs(already);
        DbError other = db("23505", "duplicate key");
        assertThat(OUTAGES.translate(new CompletionException(other), "idempotency_keys")).isSameAs(other);
        assertThat(SqlOutages.unwrap(new CompletionException(new CompletionException(other)))).isSameAs(other);
    }

    /** A pool's timeout with the connection failure behind it. */
    static final class TimeoutExceptionWithCause extends TimeoutException {
        TimeoutExceptionWithCause(String message, Throwable cause) {
            super(message);
            initCause(cause);
        }
    }
}
