package dev.idempotency.r2dbc;

/** The test kit's races on MariaDB through r2dbc-mariadb: two instances, each with its own pool. */
class MariaDbR2dbcRaceTest extends PostgresR2dbcRaceTest {

    @Override
    R2dbcTestDatabase openDatabase() {
        return R2dbcTestDatabase.mariadb();
    }
}
