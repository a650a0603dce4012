package dev.idempotency.jdbc;

import dev.idempotency.testkit.internal.TcpProxy;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback forwarder in front of PostgreSQL that counts the client's round trips on the wire.
 *
 * <p>A client of the extended query protocol sends a batch of messages (Parse, Bind, Execute, …)
 * and ends it with one {@code Sync}; then it waits for the server's {@code ReadyForQuery}. A simple
 * {@code Query} message is answered on its own. So a round trip is a {@code Sync}, or a
 * {@code Query} that the client waits on — not one it pipelines in front of more messages, as
 * pgJDBC does with the {@code BEGIN} of a transaction (which is why counting the server's
 * {@code ReadyForQuery} messages would count one round trip too many per transaction). The
 * client's stream is parsed into messages (type byte, 4-byte length; the startup message has no
 * type) and counted before it is forwarded, so the count is complete once the client has its
 * answer.
 *
 * <p>Connect without TLS and GSS encryption ({@code sslmode=disable&gssEncMode=disable}).
 */
final class RoundTripCountingProxy implements AutoCloseable {

    private final AtomicLong roundTrips = new AtomicLong();
    private final TcpProxy proxy;

    RoundTripCountingProxy(int targetPort) throws IOException {
        this.proxy = new TcpProxy(targetPort, () -> new Parser(roundTrips));
    }

    int port() {
        return proxy.port();
    }

    /** Round trips the clients have made so far, over every connection. */
    long roundTrips() {
        return roundTrips.get();
    }

    /** The client's side of one connection, message by message across reads. */
    private static final class Parser implements TcpProxy.Tap {
        private final AtomicLong roundTrips;

        Parser(AtomicLong roundTrips) {
            this.roundTrips = roundTrips;
        }

        @Override
        public void clientSent(byte[] data, int length) {
            roundTrips.addAndGet(feed(data, length));
        }

        private final byte[] header = new byte[5];
        private int headerRead;
        private long bodyLeft;
        private boolean startup = true;
        private byte type;

        /** Consumes one read; returns the round trips completed in it. */
        int feed(byte[] data, int length) {
            int count = 0;
            int i = 0;
            while (i < length) {
                if (bodyLeft > 0) {
                    int skip = (int) Math.min(bodyLeft, length - i);
                    i += skip;
                    bodyLeft -= skip;
                } else {
                    int headerSize = startup ? 4 : 5;
                    header[headerRead++] = data[i++];
                    if (headerRead < headerSize) {
                        continue;
                    }
                    int offset = startup ? 0 : 1;
                    type = startup ? 0 : header[0];
                    bodyLeft = (((header[offset] & 0xffL) << 24) | ((header[offset + 1] & 0xff) << 16)
                            | ((header[offset + 2] & 0xff) << 8) | (header[offset + 3] & 0xff)) - 4;
                    headerRead = 0;
                    startup = false;
                }
                if (bodyLeft == 0 && headerRead == 0) {
                    // a whole message: a Sync, or a Query the client waits on (nothing sent after it)
                    if (type == 'S' || (type == 'Q' && i == length)) {
                        count++;
                    }
                    type = 0;
                }
            }
            return count;
        }
    }

    @Override
    public void close() {
        proxy.close();
    }
}
