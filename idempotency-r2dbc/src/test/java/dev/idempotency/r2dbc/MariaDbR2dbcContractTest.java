package dev.idempotency.r2dbc;

/** The test kit's contract on MariaDB through r2dbc-mariadb (the upsert returning its row). */
class MariaDbR2dbcContractTest extends PostgresR2dbcContractTest {

    @Override
    R2dbcTestDatabase openDatabase() {
        return R2dbcTestDatabase.mariadb();
    }
}
