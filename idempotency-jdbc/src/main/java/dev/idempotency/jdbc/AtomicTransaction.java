package dev.idempotency.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Set;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultConfiguration;

/**
 * The transaction of one idempotent request in the atomic mode: the handler's business writes go
 * here, and they commit together with the stored response — or not at all.
 *
 * <p>A handler reaches it through its adapter's execution accessor:
 *
 * <pre>{@code
 * // Javalin: IdempotencyPlugin.execution(ctx); Micronaut: IdempotentRequests.execution(request);
 * // Vert.x (on a worker thread): IdempotencyHandler.execution(ctx)
 * Optional<AtomicTransaction> tx = IdempotencyPlugin.execution(ctx)
 *         .flatMap(execution -> execution.unwrap(AtomicTransaction.class));
 * tx.get().dsl().insertInto(ORDERS).set(...).execute();      // or tx.get().connection()
 * }</pre>
 *
 * {@code execution.unwrap(Connection.class)} and {@code execution.unwrap(DSLContext.class)} give
 * the two parts directly.
 *
 * <p>The engine commits, rolls back and returns the connection to the pool; the handler only
 * writes. So the connection refuses {@code commit()}, {@code rollback()}, {@code setAutoCommit(true)},
 * {@code setTransactionIsolation} and {@code abort} with an {@link IllegalStateException};
 * {@code close()} does nothing (a {@code try}-with-resources block is harmless); savepoints work,
 * and {@link #dsl()}'s {@code transaction(...)} is a savepoint inside this transaction. Once the
 * request is finished every call on the connection fails, so a reference kept past the request
 * cannot write into another request's transaction.
 *
 * <p>Not thread-safe, like any JDBC connection: use it from one thread at a time (on Vert.x, from
 * worker threads only — never on the event loop).
 */
public final class AtomicTransaction {

    private static final Set<String> REFUSED = Set.of("commit", "setAutoCommit", "setTransactionIsolation", "abort");

    private final Guard guard;
    private final Connection connection;
    private final SQLDialect dialect;
    private DSLContext dsl;

    AtomicTransaction(Connection connection, SQLDialect dialect) {
        this.guard = new Guard(connection);
        this.connection = (Connection) Proxy.newProxyInstance(AtomicTransaction.class.getClassLoader(),
                new Class<?>[] {Connection.class}, guard);
        this.dialect = dialect;
    }

    /** The request's JDBC connection, inside its open transaction. */
    public Connection connection() {
        return connection;
    }

    /** A jOOQ context on {@link #connection()}, in the store's dialect. */
    public synchronized DSLContext dsl() {
        if (dsl == null) {
            dsl = DSL.using(new DefaultConfiguration()
                    .set(connection)
                    .set(dialect)
                    .set(new SavepointTransactionProvider(connection)));
        }
        return dsl;
    }

    /** The jOOQ dialect of {@link #dsl()}. */
    public SQLDialect dialect() {
        return dialect;
    }

    /** After the commit or rollback: every further call on {@link #connection()} fails. */
    void close() {
        guard.finished = true;
    }

    /** Lets the handler write, but leaves the transaction's end and the connection to the engine. */
    private static final class Guard implements InvocationHandler {
        private final Connection target;
        private volatile boolean finished;

        Guard(Connection target) {
            this.target = target;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            if (method.getDeclaringClass() == Object.class) {
                return switch (name) {
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> "AtomicTransaction.connection[" + (finished ? "finished" : "open") + "]";
                };
            }
            boolean noArgs = args == null || args.length == 0;
            if (name.equals("close") && noArgs) {
                return null;
            }
            if (name.equals("isClosed") && noArgs) {
                return finished || target.isClosed();
            }
            if (finished) {
                throw new IllegalStateException("The atomic transaction of this request is finished; its connection "
                        + "is back in the pool");
            }
            if (name.equals("setAutoCommit") && Boolean.FALSE.equals(args[0])) {
                return null; // it is off already; tools that switch it off before their work stay happy
            }
            if (REFUSED.contains(name) || name.equals("rollback") && noArgs) {
                throw new IllegalStateException("The atomic transaction commits or rolls back when the request is "
                        + "finished; a handler must not call " + name + "()");
            }
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }
}
