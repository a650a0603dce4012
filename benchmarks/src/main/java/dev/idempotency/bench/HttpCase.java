package dev.idempotency.bench;

/**
 * One row of the HTTP table: a configuration on a store. {@code off} opens no store and is one
 * case per framework, filed under {@link BenchStore#JDBC}.
 */
record HttpCase(HttpConfig config, BenchStore store) {

    /** The service a case is measured on: replays go to the reserve-mode service of the same store. */
    HttpCase service() {
        return config == HttpConfig.REPLAY ? new HttpCase(HttpConfig.RESERVE, store) : this;
    }

    /** E.g. {@code reserve}, {@code pg reserve}: the JDBC store's rows keep their old names. */
    String label() {
        return store == BenchStore.JDBC ? config.label() : store.label() + " " + config.label();
    }

    /** E.g. {@code reserve}, {@code pg-reserve}: service, log and schema names. */
    String name() {
        return store == BenchStore.JDBC ? config.label() : store.label() + "-" + config.label();
    }

    /** The store column: none for {@code off}, which runs without the middleware. */
    String storeLabel() {
        return config == HttpConfig.OFF ? "none" : store.label();
    }
}
