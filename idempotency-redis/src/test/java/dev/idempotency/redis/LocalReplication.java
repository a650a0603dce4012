package dev.idempotency.redis;

import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A standalone master and one replica ({@code replicaof}) on loopback, from the local
 * {@code redis-server}, ports from 7201, in a temporary directory. {@link #stop()} ends both
 * processes and deletes the directory, whatever state the start left things in.
 */
final class LocalReplication {

    private static final int FIRST_PORT = 7201;

    private final Path dir;
    private final List<Process> processes = new ArrayList<>();
    private int masterPort;
    private int replicaPort;

    private LocalReplication(Path dir) {
        this.dir = dir;
    }

    /** Starts the master and the replica and waits until the replica is in sync. */
    static LocalReplication start() throws IOException {
        LocalReplication replication = new LocalReplication(Files.createTempDirectory("idempotency-redis-replication"));
        try {
            replication.startServers();
            return replication;
        } catch (IOException | RuntimeException e) {
            replication.stop();
            throw e;
        }
    }

    private void startServers() throws IOException {
        List<Integer> ports = new ArrayList<>();
        for (int port = FIRST_PORT; ports.size() < 2; port++) {
            if (port > FIRST_PORT + 500) {
                throw new IllegalStateException("No free ports for a master and a replica from " + FIRST_PORT);
            }
            if (free(port)) {
                ports.add(port);
            }
        }
        masterPort = ports.get(0);
        replicaPort = ports.get(1);
        processes.add(server(masterPort));
        processes.add(server(replicaPort, "--replicaof", "127.0.0.1", Integer.toString(masterPort)));
        RedisClient client = RedisClient.create();
        try {
            await("replica on " + replicaPort + " in sync with " + masterPort).atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(() -> {
                        try (StatefulRedisConnection<String, String> master = client.connect(masterUri());
                             StatefulRedisConnection<String, String> replica = client.connect(replicaUri())) {
                            String replicaInfo = replica.sync().info("replication");
                            return master.sync().info("replication").contains("connected_slaves:1")
                                    && replicaInfo.contains("master_link_status:up")
                                    && replicaInfo.contains("master_sync_in_progress:0");
                        }
                    });
        } finally {
            client.shutdown();
        }
    }

    private Process server(int port, String... more) throws IOException {
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--dir", dir.toString(), "--dbfilename", "dump-" + port + ".rdb",
                "--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0", "--daemonize", "no"));
        command.addAll(List.of(more));
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis-" + port + ".log").toFile()).start();
    }

    RedisURI masterUri() {
        return RedisURI.create("127.0.0.1", masterPort);
    }

    RedisURI replicaUri() {
        return RedisURI.create("127.0.0.1", replicaPort);
    }

    /** Stops both servers (waiting for each to exit) and deletes the directory. */
    void stop() {
        try {
            processes.forEach(Process::destroy);
            for (Process process : processes) {
                try {
                    if (!process.waitFor(10, TimeUnit.SECONDS)) {
                        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    }
                } catch (InterruptedException e) {
                    process.destroyForcibly();
                    Thread.currentThread().interrupt();
                }
            }
        } finally {
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            } catch (IOException e) {
                System.err.println("Could not delete " + dir + ": " + e);
            }
        }
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return true;
        } catch (IOException taken) {
            return false;
        }
    }
}
