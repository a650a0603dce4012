package dev.idempotency.jdbc;

/** Idempotent calls in the atomic mode on H2. */
class H2AtomicCallsTest extends AbstractAtomicCallsTest {

    @Override
    TestDatabase openDatabase() {
        return TestDatabase.h2();
    }
}
