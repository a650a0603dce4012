package dev.idempotency.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import java.net.ConnectException;
import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import org.jooq.exception.DataAccessException;
import org.junit.jupiter.api.Test;

/** Which failures become which 503, by SQLState, vendor code and exception type. */
class SqlFailuresTest {

    private static Reason reason(Throwable cause) {
        RuntimeException translated = SqlFailures.translate(new DataAccessException("wrapped", cause), "app.idempotency_keys");
        return translated instanceof StorageUnavailableException e ? e.reason() : null;
    }

    @Test
    void missingTables() {
        assertThat(reason(new SQLException("relation \"idempotency_keys\" does not exist", "42P01"))).isEqualTo(Reason.NOT_PROVISIONED);
        assertThat(reason(new SQLException("schema \"app\" does not exist", "3F000"))).isEqualTo(Reason.NOT_PROVISIONED);
        assertThat(reason(new SQLException("Table 'test.idempotency_keys' doesn't exist", "42S02", 1146))).isEqualTo(Reason.NOT_PROVISIONED);
        assertThat(reason(new SQLException("Table \"idempotency_keys\" not found", "42S02", 42102))).isEqualTo(Reason.NOT_PROVISIONED);
        assertThat(reason(new SQLException("Table not found (this database is empty)", "42S04", 42104))).isEqualTo(Reason.NOT_PROVISIONED);
    }

    /** As the reactive store answers it: the same classification of PostgreSQL's states. */
    @Test
    void aTableWithoutTheCallerColumnIsNotProvisionedAndTheMessageNamesTheMigration() {
        RuntimeException translated = SqlFailures.translate(new SQLException("column \"caller\" does not exist",
                "42703"), "idempotency_keys");
        assertThat(translated).isInstanceOf(StorageUnavailableException.class)
                .hasMessage("Idempotency table idempotency_keys has no column caller: apply "
                        + "db/idempotency/postgresql/V4__idempotency_keys_caller.sql");
        assertThat(((StorageUnavailableException) translated).reason()).isEqualTo(Reason.NOT_PROVISIONED);
        assertThat(reason(new SQLException("column \"colour\" does not exist", "42703"))).isNull();
    }

    @Test
    void aBadTableReferenceInsideAQueryIsNotAMissingTable() {
        assertThat(reason(new SQLException("invalid reference to FROM-clause entry for table \"excluded\"", "42P01"))).isNull();
    }

    @Test
    void anExhaustedPoolIsBusyNotUnreachable() {
        assertThat(reason(new SQLTransientConnectionException("pool - Connection is not available, request timed out after 1500ms")))
                .as("every connection in use: overload").isEqualTo(Reason.BUSY);
        assertThat(reason(new SQLTransientConnectionException("pool - Connection is not available, request timed out after 1500ms",
                "08001", new SQLException("Connection refused", "08001", new ConnectException("refused")))))
                .as("the pool could not connect: an outage").isEqualTo(Reason.UNREACHABLE);
        assertThat(reason(new SQLException("canceling statement due to statement timeout", "57014"))).isEqualTo(Reason.BUSY);
        assertThat(reason(new SQLException("sorry, too many clients already", "53300"))).isEqualTo(Reason.BUSY);
    }

    @Test
    void unreachableDatabases() {
        assertThat(reason(new SQLException("Connection refused", "08001"))).isEqualTo(Reason.UNREACHABLE);
        assertThat(reason(new SQLException("An I/O error occurred while sending to the backend", "08006"))).isEqualTo(Reason.UNREACHABLE);
        assertThat(reason(new SQLException("terminating connection due to administrator command", "57P01"))).isEqualTo(Reason.UNREACHABLE);
        assertThat(reason(new SQLException("Socket fail to connect", "08000", -1, new ConnectException("refused")))).isEqualTo(Reason.UNREACHABLE);
        assertThat(reason(new RuntimeException(new ConnectException("Connection refused")))).isEqualTo(Reason.UNREACHABLE);
    }

    @Test
    void aPoolTimeoutOverARefusedConnectionIsUnreachableAndSaysWhatWasRefused() {
        RuntimeException translated = SqlFailures.translate(new SQLTransientConnectionException(
                "pool - Connection is not available", new ConnectException("Connection refused")), "idempotency_keys");
        assertThat(translated).isInstanceOf(StorageUnavailableException.class)
                .hasMessage("Idempotency database unreachable: Connection refused");
        assertThat(reason(new SQLTimeoutException("query timed out"))).isEqualTo(Reason.BUSY);
    }

    @Test
    void theNextExceptionsOfABatchCount() {
        BatchUpdateException batch = new BatchUpdateException("Batch entry 0 was aborted", "23505", new int[0]);
        batch.setNextException(new SQLException("duplicate key", "23505"));
        batch.setNextException(new SQLException("Table 'test.idempotency_keys' doesn't exist", "42S02", 1146));
        assertThat(reason(batch)).isEqualTo(Reason.NOT_PROVISIONED);
        assertThat(SqlFailures.reasonOf(batch, "idempotency_keys")).isEqualTo(Reason.NOT_PROVISIONED);
    }

    @Test
    void everythingElseStaysWhatItWas() {
        DataAccessException other = new DataAccessException("x", new SQLException("duplicate key", "23505"));
        assertThat(SqlFailures.translate(other, "idempotency_keys")).isSameAs(other);
        assertThat(reason(new SQLException("new row violates row-level security policy", "42501"))).isNull();
    }
}
