package dev.idempotency.jakartars;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Holds what the entity writer writes, up to a limit, so it can be stored before the client sees
 * it. Past the limit — or at a flush, when {@code flushPasses} (a streamed entity) — it sends what it
 * holds and passes everything on from then on: the response is then not captured.
 */
final class CapturingStream extends OutputStream {

    private final OutputStream wire;
    private final int limit;
    private final boolean flushPasses;
    private ByteArrayOutputStream held = new ByteArrayOutputStream();

    CapturingStream(OutputStream wire, int limit, boolean flushPasses) {
        this.wire = wire;
        this.limit = limit;
        this.flushPasses = flushPasses;
    }

    /** Whether bytes went to the client already. */
    boolean passedOn() {
        return held == null;
    }

    /** What was held; only while nothing passed on. */
    byte[] bytes() {
        return held.toByteArray();
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (held != null && held.size() + len > limit) {
            passOn();
        }
        if (held == null) {
            wire.write(b, off, len);
        } else {
            held.write(b, off, len);
        }
    }

    @Override
    public void flush() throws IOException {
        if (held == null) {
            wire.flush();
        } else if (flushPasses) {
            passOn();
            wire.flush();
        }
    }

    /**
     * Sends {@code body} in place of what is held and passes everything written later on (an
     * inner stream that writes when it is closed); after this, nothing more is held.
     */
    void release(byte[] body) throws IOException {
        held = null;
        wire.write(body);
    }

    /** Closing is the runtime's business, once the interceptor has decided what to send. */
    @Override
    public void close() {
    }

    private void passOn() throws IOException {
        held.writeTo(wire);
        held = null;
    }
}
