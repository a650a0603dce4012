package dev.idempotency.bench.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * A JDBC driver for URLs {@code jdbc:counting:<subprotocol>:...} that opens the real
 * {@code jdbc:<subprotocol>:...} connection and counts, per statement execution and transaction
 * end, the database round trips the application makes — exactly, on the client side, without
 * {@code pg_stat_statements} (which needs a server restart to enable) and without touching the
 * service's code: the benchmark puts this class on the service's classpath (it registers itself
 * through {@code META-INF/services/java.sql.Driver}) and prefixes {@code DATABASE_URL}.
 *
 * <p>What counts, mirroring what pgJDBC puts on the wire: each {@code execute*} is one round trip
 * (pgJDBC sends an implicit {@code BEGIN} in the same one); in autocommit mode it is also one
 * committed transaction; {@code commit()} / {@code rollback()} / switching autocommit back on are
 * a round trip only when the transaction ran a statement and no statement ended it with its own
 * {@code COMMIT} (pgJDBC sends nothing otherwise);
 * {@code isValid} is a round trip. Counters live in the file named by the system property
 * {@value #COUNTERS_PROPERTY} (see {@link Counters}).
 */
public final class CountingDriver implements Driver {

    /** The URL prefix; the rest, after {@code jdbc:}, is the real URL. */
    public static final String PREFIX = "jdbc:counting:";
    /** System property naming the counters file. */
    public static final String COUNTERS_PROPERTY = "idempotency.bench.jdbcCounters";
    /** The idempotency table's name, to tell the store's statements from the application's. */
    private static final String STORE_TABLE = "idempotency_keys";

    private static final Counters COUNTERS = System.getProperty(COUNTERS_PROPERTY) == null
            ? Counters.inMemory()
            : Counters.mapped(Path.of(System.getProperty(COUNTERS_PROPERTY)));

    static {
        try {
            DriverManager.registerDriver(new CountingDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null; // the DriverManager contract: not ours
        }
        Connection real = DriverManager.getConnection("jdbc:" + url.substring(PREFIX.length()), info);
        return (Connection) Proxy.newProxyInstance(CountingDriver.class.getClassLoader(),
                new Class<?>[] {Connection.class}, new ConnectionHandler(real));
    }

    @Override
    public boolean acceptsURL(String url) {
        return url != null && url.startsWith(PREFIX);
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
        return new DriverPropertyInfo[0];
    }

    @Override
    public int getMajorVersion() {
        return 1;
    }

    @Override
    public int getMinorVersion() {
        return 0;
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    private static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** One pooled connection: used by one thread at a time, handed over by the pool. */
    private static final class ConnectionHandler implements InvocationHandler {
        private final Connection target;
        private boolean autoCommit;
        /** A statement ran since the transaction began: ending it is a round trip. */
        private boolean inTransaction;

        ConnectionHandler(Connection target) throws SQLException {
            this.target = target;
            this.autoCommit = target.getAutoCommit();
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            switch (method.getName()) {
                case "createStatement":
                    return statement(Statement.class, call(target, method, args), null);
                case "prepareStatement":
                    return statement(PreparedStatement.class, call(target, method, args), (String) args[0]);
                case "prepareCall":
                    return statement(CallableStatement.class, call(target, method, args), (String) args[0]);
                case "setAutoCommit":
                    boolean on = (Boolean) args[0];
                    if (on && !autoCommit) {
                        endTransaction(Counters.Slot.COMMITS); // pgJDBC commits what is open
                    }
                    Object result = call(target, method, args);
                    autoCommit = on;
                    return result;
                case "commit":
                    endTransaction(Counters.Slot.COMMITS);
                    return call(target, method, args);
                case "rollback":
                    if (args == null) {
                        endTransaction(Counters.Slot.ROLLBACKS);
                    } else {
                        COUNTERS.increment(Counters.Slot.OTHER_ROUND_TRIPS); // to a savepoint
                    }
                    return call(target, method, args);
                case "isValid":
                    COUNTERS.increment(Counters.Slot.OTHER_ROUND_TRIPS);
                    return call(target, method, args);
                default:
                    return call(target, method, args);
            }
        }

        private void endTransaction(Counters.Slot how) {
            if (inTransaction) {
                COUNTERS.increment(how);
                COUNTERS.increment(Counters.Slot.OTHER_ROUND_TRIPS);
                inTransaction = false;
            }
        }

        void executed(String sql) {
            COUNTERS.increment(Counters.Slot.STATEMENTS);
            if (sql != null && sql.toLowerCase(Locale.ROOT).contains(STORE_TABLE)) {
                COUNTERS.increment(Counters.Slot.STORE_STATEMENTS);
            }
            if (autoCommit) {
                COUNTERS.increment(Counters.Slot.COMMITS);
            } else if (endsWithCommit(sql)) {
                // "...; COMMIT" in one message (the atomic mode's completion): the server ends the
                // transaction, and pgJDBC's commit() afterwards sends nothing.
                COUNTERS.increment(Counters.Slot.COMMITS);
                inTransaction = false;
            } else {
                inTransaction = true;
            }
        }

        private static boolean endsWithCommit(String sql) {
            if (sql == null) {
                return false;
            }
            String tail = sql.strip().toLowerCase(Locale.ROOT);
            while (tail.endsWith(";")) {
                tail = tail.substring(0, tail.length() - 1).strip();
            }
            return tail.endsWith("commit") && (tail.length() == 6
                    || !Character.isLetterOrDigit(tail.charAt(tail.length() - 7)) && tail.charAt(tail.length() - 7) != '_');
        }

        private Object statement(Class<?> type, Object statement, String sql) {
            return Proxy.newProxyInstance(CountingDriver.class.getClassLoader(), new Class<?>[] {type},
                    new StatementHandler(this, statement, sql));
        }
    }

    /** Counts each execution of one statement; the SQL comes from prepare or from the call. */
    private static final class StatementHandler implements InvocationHandler {
        private final ConnectionHandler connection;
        private final Object target;
        private final String preparedSql;

        StatementHandler(ConnectionHandler connection, Object target, String preparedSql) {
            this.connection = connection;
            this.target = target;
            this.preparedSql = preparedSql;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            if (name.startsWith("execute")) {
                String sql = args != null && args.length > 0 && args[0] instanceof String s ? s : preparedSql;
                connection.executed(sql);
            }
            return call(target, method, args);
        }
    }
}
