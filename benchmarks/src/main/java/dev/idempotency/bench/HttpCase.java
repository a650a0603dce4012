package dev.idempotency.bench;

/**
 * One row of the HTTP table: a configuration on a store, measured in a group of services that run
 * side by side. The main group ({@code group} empty) is the JdbcStore's configurations with
 * {@code off}, which opens no store and is filed under {@link BenchStore#JDBC}. Each other store
 * is measured in pairs: one group per service mode (e.g. {@code pg-reserve}: the JdbcStore's and
 * PgStore's reserve services, with their replays), so that a pair takes turns head to head and
 * the services up at once stay within PostgreSQL's connection limit.
 */
record HttpCase(HttpConfig config, BenchStore store, String group) {

    HttpCase(HttpConfig config, BenchStore store) {
        this(config, store, "");
    }

    /** The service a case is measured on: replays go to the reserve-mode service of the same store and group. */
    HttpCase service() {
        return config == HttpConfig.REPLAY ? new HttpCase(HttpConfig.RESERVE, store, group) : this;
    }

    /** E.g. {@code reserve}, {@code pg reserve}: the JDBC store's rows keep their old names. */
    String label() {
        return store == BenchStore.JDBC ? config.label() : store.label() + " " + config.label();
    }

    /** E.g. {@code reserve}, {@code pg-reserve}, {@code reserve-in-pg-reserve}: service, log and schema names. */
    String name() {
        String name = store == BenchStore.JDBC ? config.label() : store.label() + "-" + config.label();
        return group.isEmpty() ? name : name + "-in-" + group;
    }

    /** The store column: none for {@code off}, which runs without the middleware. */
    String storeLabel() {
        return config == HttpConfig.OFF ? "none" : store.label();
    }
}
