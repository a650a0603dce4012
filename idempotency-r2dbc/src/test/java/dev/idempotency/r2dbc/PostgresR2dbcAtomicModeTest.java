package dev.idempotency.r2dbc;

/** The atomic mode on PostgreSQL through r2dbc-postgresql. */
class PostgresR2dbcAtomicModeTest extends AbstractR2dbcAtomicModeTest {

    @Override
    R2dbcTestDatabase openDatabase() {
        return R2dbcTestDatabase.postgres();
    }

    @Override
    String placeholder() {
        return "$1";
    }
}
