package dev.idempotency.r2dbc;

/** The atomic mode on MariaDB through r2dbc-mariadb. */
class MariaDbR2dbcAtomicModeTest extends AbstractR2dbcAtomicModeTest {

    @Override
    R2dbcTestDatabase openDatabase() {
        return R2dbcTestDatabase.mariadb();
    }

    @Override
    String placeholder() {
        return "?";
    }
}
