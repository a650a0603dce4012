package dev.idempotency.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP forwarder in front of the database that a test takes down — the port then
 * refuses connections and every open one is cut — and brings back on the same port: a database
 * that goes away and returns, as a connection pool sees it.
 */
public final class TcpProxy implements AutoCloseable {

    private final int targetPort;
    private final int port;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile ServerSocket server;

    public TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            this.port = probe.getLocalPort();
        }
        start();
    }

    public int port() {
        return port;
    }

    /** Listens (again) on the same port. */
    public synchronized void start() throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        server = s;
        Thread acceptor = new Thread(() -> accept(s), "proxy-accept-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Refuses new connections and cuts every open one. */
    public synchronized void stop() {
        closeQuietly(server);
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
    }

    @Override
    public void close() {
        stop();
    }

    private void accept(ServerSocket s) {
        while (!s.isClosed()) {
            try {
                Socket client = s.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                // closed by stop(), or the target refused: the client sees its connection end
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
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
