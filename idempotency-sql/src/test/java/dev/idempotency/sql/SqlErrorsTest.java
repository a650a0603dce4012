package dev.idempotency.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.StorageUnavailableException.Reason;
import org.junit.jupiter.api.Test;

class SqlErrorsTest {

    @Test
    void notProvisioned() {
        assertThat(SqlErrors.outageOf("42P01", 0, "relation \"idempotency_keys\" does not exist", "idempotency_keys"))
                .isEqualTo(Reason.NOT_PROVISIONED);
        assertThat(SqlErrors.outageOf("42P01", 0, "relation \"orders\" does not exist", "idempotency_keys")).isNull();
        assertThat(SqlErrors.outageOf("3F000", 0, "schema", "t")).isEqualTo(Reason.NOT_PROVISIONED);
        assertThat(SqlErrors.outageOf("42703", 0, "column \"caller\" does not exist", "t"))
                .isEqualTo(Reason.NOT_PROVISIONED);
        assertThat(SqlErrors.outageOf("42S02", 1146, "Table 'test.t' doesn't exist", "t")).isEqualTo(Reason.NOT_PROVISIONED);
        assertThat(SqlErrors.outageOf(null, 1146, null, "t")).isEqualTo(Reason.NOT_PROVISIONED);
        assertThat(SqlErrors.outageOf("42S02", 42104, null, "t")).isEqualTo(Reason.NOT_PROVISIONED);
    }

    @Test
    void unreachable() {
        assertThat(SqlErrors.outageOf("08006", 0, null, "t")).isEqualTo(Reason.UNREACHABLE);
        assertThat(SqlErrors.outageOf("57P01", 0, null, "t")).isEqualTo(Reason.UNREACHABLE);
        assertThat(SqlErrors.outageOf("90098", 90098, null, "t")).isEqualTo(Reason.UNREACHABLE);
    }

    @Test
    void busy() {
        for (String state : new String[] {"57014", "55P03", "53300", "70100"}) {
            assertThat(SqlErrors.outageOf(state, 0, null, "t")).as(state).isEqualTo(Reason.BUSY);
        }
        for (int code : new int[] {1205, 1969, 3024, 50200}) {
            assertThat(SqlErrors.outageOf("HY000", code, null, "t")).as("" + code).isEqualTo(Reason.BUSY);
        }
        assertThat(SqlErrors.outageOf("23505", 0, null, "t")).isNull();
    }

    @Test
    void lockTimeoutsStartOverAndTheRest() {
        assertThat(SqlErrors.isLockTimeout("55P03", 0)).isTrue();
        assertThat(SqlErrors.isLockTimeout("40001", 1205)).isTrue();
        assertThat(SqlErrors.isLockTimeout("HYT00", 50200)).isTrue();
        assertThat(SqlErrors.isLockTimeout("57014", 0)).isFalse();
        assertThat(SqlErrors.mustStartOver("40001")).isTrue();
        assertThat(SqlErrors.mustStartOver("40P01")).isTrue();
        assertThat(SqlErrors.mustStartOver("55P03")).isFalse();
        assertThat(SqlErrors.mustStartOver(null)).isFalse();
        assertThat(SqlErrors.lacksNamedLocks(1235)).isTrue();
        assertThat(SqlErrors.isReservationGone("22P02", "invalid input: " + SqlErrors.RESERVATION_GONE + " 0")).isTrue();
        assertThat(SqlErrors.isReservationGone("22P02", "invalid input syntax for type integer")).isFalse();
    }

    @Test
    void messages() {
        assertThat(SqlErrors.outageMessage(Reason.NOT_PROVISIONED, "app.t", true, "x"))
                .isEqualTo("Idempotency table app.t has no column caller: apply"
                        + " db/idempotency/postgresql/V4__idempotency_keys_caller.sql");
        assertThat(SqlErrors.outageMessage(Reason.BUSY, "t", false, "timeout")).isEqualTo("Idempotency database busy: timeout");
    }
}
