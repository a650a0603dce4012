package dev.idempotency.testkit.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * A loopback TCP forwarder in front of the database that a test takes down — the port then
 * refuses connections and every open one is cut — and brings back on the same port: a database
 * that goes away and returns, as a connection pool sees it. A {@link Tap} can watch what clients
 * send, e.g. to count a protocol's round trips on the wire; {@link #dropReplies} loses the
 * server's answers on the way back, e.g. the acknowledgement of a COMMIT that landed.
 */
public final class TcpProxy implements AutoCloseable {

    /** Sees every chunk a client sends on one connection, before it is forwarded. */
    @FunctionalInterface
    public interface Tap {
        void clientSent(byte[] data, int length);
    }

    private static final Tap NO_TAP = (data, length) -> { };

    private final int targetPort;
    private final Supplier<? extends Tap> taps;
    private final int port;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile ServerSocket server;
    private volatile boolean dropReplies;

    public TcpProxy(int targetPort) throws IOException {
        this(targetPort, () -> NO_TAP);
    }

    /** @param taps gives each new connection the {@link Tap} that watches its client's bytes */
    public TcpProxy(int targetPort, Supplier<? extends Tap> taps) throws IOException {
        this.targetPort = targetPort;
        this.taps = taps;
        try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            this.port = probe.getLocalPort();
        }
        start();
    }

    public int port() {
        return port;
    }

    /**
     * Listens (again) on the same port. Right after {@link #stop()} the old listening socket may
     * still be closing (its acceptor thread lets go of it asynchronously): the bind is retried for
     * up to a second.
     */
    public synchronized void start() throws IOException {
        ServerSocket s = bind();
        server = s;
        Thread acceptor = new Thread(() -> accept(s), "proxy-accept-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private ServerSocket bind() throws IOException {
        long deadline = System.nanoTime() + 1_000_000_000L;
        while (true) {
            ServerSocket s = new ServerSocket();
            try {
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                return s;
            } catch (BindException e) {
                closeQuietly(s);
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** Refuses new connections and cuts every open one. */
    public synchronized void stop() {
        closeQuietly(server);
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
    }

    /**
     * While {@code true}, what clients send is still forwarded and what the server answers is
     * dropped: a statement runs, its reply never arrives (the client waits for it until the
     * connection is {@linkplain #stop() cut}).
     */
    public void dropReplies(boolean drop) {
        this.dropReplies = drop;
    }

    @Override
    public void close() {
        stop();
    }

    private void accept(ServerSocket s) {
        while (!s.isClosed()) {
            Socket client;
            try {
                client = s.accept();
            } catch (IOException e) {
                continue; // closed by stop(): the loop ends
            }
            Socket upstream = null;
            try {
                Tap tap = taps.get();
                upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream, tap, false);
                pump(upstream, client, NO_TAP, true);
            } catch (IOException | RuntimeException e) {
                // the target refused (or the tap failed): the client sees its connection end
                closeQuietly(client);
                closeQuietly(upstream);
            }
        }
    }

    private void pump(Socket from, Socket to, Tap tap, boolean replies) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    tap.clientSent(buffer, n);
                    if (replies && dropReplies) {
                        continue;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // either side went away
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "proxy-pump-" + port);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            if (c != null) {
                c.close();
            }
        } catch (Exception e) {
            // nothing to do
        }
    }
}
