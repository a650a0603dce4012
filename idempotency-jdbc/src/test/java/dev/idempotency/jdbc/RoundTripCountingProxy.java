package dev.idempotency.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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

    private final int targetPort;
    private final ServerSocket server;
    private final AtomicLong roundTrips = new AtomicLong();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    RoundTripCountingProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "round-trip-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Round trips the clients have made so far, over every connection. */
    long roundTrips() {
        return roundTrips.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(upstream);
                start(() -> countAndCopy(client, upstream));
                start(() -> copy(upstream, client));
            } catch (IOException e) {
                // closed
            }
        }
    }

    private static void start(Runnable pump) {
        Thread t = new Thread(pump, "round-trip-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private void copy(Socket from, Socket to) {
        byte[] buffer = new byte[16384];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // either side went away
        } finally {
            closeBoth(from, to);
        }
    }

    /** Forwards what the client sends, parsing it into messages and counting round trips. */
    private void countAndCopy(Socket from, Socket to) {
        byte[] buffer = new byte[65536];
        Parser parser = new Parser();
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                roundTrips.addAndGet(parser.feed(buffer, n));
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // either side went away
        } finally {
            closeBoth(from, to);
        }
    }

    /** The client's side of one connection, message by message across reads. */
    private static final class Parser {
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

    private void closeBoth(Socket a, Socket b) {
        for (Socket s : new Socket[] {a, b}) {
            try {
                s.close();
            } catch (IOException e) {
                // nothing to do
            }
            sockets.remove(s);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
