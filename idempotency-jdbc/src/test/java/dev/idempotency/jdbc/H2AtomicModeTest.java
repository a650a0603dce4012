package dev.idempotency.jdbc;

/** The atomic mode on H2 (the examples' embedded database). */
class H2AtomicModeTest extends AbstractAtomicModeTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.h2();
    }
}
