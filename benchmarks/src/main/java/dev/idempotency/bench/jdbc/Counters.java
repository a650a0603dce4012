package dev.idempotency.bench.jdbc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * JDBC counters shared between the example service's JVM (which increments them through
 * {@link CountingDriver}) and the benchmark runner's JVM (which reads them before and after a
 * measured phase): a few longs in a memory-mapped file, updated atomically. No sockets, no
 * polling, no change to the service.
 */
public final class Counters {

    /** What is counted. */
    public enum Slot {
        /** Statement executions: one round trip each. */
        STATEMENTS,
        /** Of those, statements on the idempotency table (the store's share). */
        STORE_STATEMENTS,
        /** Transactions committed: autocommit statements plus explicit commits of a transaction that ran something. */
        COMMITS,
        /** Rollbacks of a transaction that ran something. */
        ROLLBACKS,
        /** Round trips that are not statements: explicit COMMIT / ROLLBACK, connection validation. */
        OTHER_ROUND_TRIPS
    }

    private static final int SIZE = Slot.values().length * Long.BYTES;
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final ByteBuffer buffer;

    private Counters(ByteBuffer buffer) {
        this.buffer = buffer;
    }

    /** Counters in {@code file}, created (zeroed) if missing. */
    public static Counters mapped(Path file) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            return new Counters(channel.map(FileChannel.MapMode.READ_WRITE, 0, SIZE));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot map the JDBC counters at " + file, e);
        }
    }

    /** Counters nobody else reads (a service started without the counters file). */
    static Counters inMemory() {
        return new Counters(ByteBuffer.allocateDirect(SIZE));
    }

    void increment(Slot slot) {
        LONGS.getAndAdd(buffer, slot.ordinal() * Long.BYTES, 1L);
    }

    public long get(Slot slot) {
        return (long) LONGS.getVolatile(buffer, slot.ordinal() * Long.BYTES);
    }

    /** All counters at once (each read atomically; take it while the counted side is quiet). */
    public Snapshot snapshot() {
        long[] values = new long[Slot.values().length];
        for (Slot slot : Slot.values()) {
            values[slot.ordinal()] = get(slot);
        }
        return new Snapshot(values);
    }

    /** Counter values at one moment. */
    public record Snapshot(long[] values) {

        public long get(Slot slot) {
            return values[slot.ordinal()];
        }

        /** {@code this - earlier}, slot by slot. */
        public Snapshot minus(Snapshot earlier) {
            long[] delta = new long[values.length];
            for (int i = 0; i < values.length; i++) {
                delta[i] = values[i] - earlier.values[i];
            }
            return new Snapshot(delta);
        }

        /** {@code this + other}, slot by slot. */
        public Snapshot plus(Snapshot other) {
            long[] sum = new long[values.length];
            for (int i = 0; i < values.length; i++) {
                sum[i] = values[i] + other.values[i];
            }
            return new Snapshot(sum);
        }

        /** All zero. */
        public static Snapshot zero() {
            return new Snapshot(new long[Slot.values().length]);
        }

        /** Round trips to the database: statements plus the other round trips. */
        public long roundTrips() {
            return get(Slot.STATEMENTS) + get(Slot.OTHER_ROUND_TRIPS);
        }
    }
}
