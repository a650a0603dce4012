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
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * A Redis Cluster of three masters and three replicas on loopback, from the local
 * {@code redis-server} and {@code redis-cli}: six processes, their config and logs in a temporary
 * directory. {@link #stop()} ends every process it started and deletes the directory, whatever
 * state the start left things in.
 */
final class LocalCluster {

    private static final int NODES = 6;
    private static final int FIRST_PORT = 7101;

    private final Path dir;
    private final List<Integer> ports = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    private final RedisClient nodeClient = RedisClient.create();

    private LocalCluster(Path dir) {
        this.dir = dir;
    }

    /** Whether {@code redis-server} and {@code redis-cli} run here. */
    static boolean toolsAvailable() {
        for (String tool : List.of("redis-server", "redis-cli")) {
            try {
                Process version = new ProcessBuilder(tool, "--version").redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (!version.waitFor(10, TimeUnit.SECONDS) || version.exitValue() != 0) {
                    version.destroyForcibly();
                    return false;
                }
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** Starts the nodes, creates the cluster and waits until every node reports {@code cluster_state:ok}. */
    static LocalCluster start() throws IOException, InterruptedException {
        LocalCluster cluster = new LocalCluster(Files.createTempDirectory("idempotency-redis-cluster"));
        try {
            cluster.startNodes();
            cluster.createCluster();
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.stop();
            throw e;
        }
    }

    private void startNodes() throws IOException {
        for (int port = FIRST_PORT; ports.size() < NODES; port++) {
            if (port > FIRST_PORT + 500) {
                throw new IllegalStateException("No free ports for a test cluster from " + FIRST_PORT);
            }
            if (free(port) && free(port + 10_000)) { // the cluster bus listens on port + 10000
                ports.add(port);
            }
        }
        for (int port : ports) {
            processes.add(new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--cluster-enabled", "yes", "--cluster-config-file", dir.resolve("nodes-" + port + ".conf").toString(),
                    "--cluster-node-timeout", "5000", "--dir", dir.toString(), "--save", "", "--appendonly", "no",
                    "--daemonize", "no")
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis-" + port + ".log").toFile())
                    .start());
        }
        for (int port : ports) {
            await("redis-server on " + port).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                    .ignoreExceptions().until(() -> onNode(port, node -> node.sync().ping()).equals("PONG"));
        }
    }

    private void createCluster() throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        ports.forEach(port -> command.add("127.0.0.1:" + port));
        command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        Path log = dir.resolve("cluster-create.log");
        Process create = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!create.waitFor(60, TimeUnit.SECONDS)) {
            create.destroyForcibly().waitFor();
            throw new IllegalStateException("redis-cli --cluster create did not finish: " + Files.readString(log));
        }
        if (create.exitValue() != 0) {
            throw new IllegalStateException("redis-cli --cluster create failed: " + Files.readString(log));
        }
        for (int port : ports) {
            await("cluster_state:ok on " + port).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> onNode(port, node -> node.sync().clusterInfo()).contains("cluster_state:ok"));
        }
    }

    /** Seed URIs of every node. */
    List<RedisURI> seeds() {
        return ports.stream().map(port -> RedisURI.create("127.0.0.1", port)).toList();
    }

    /** The ports of the masters, as node {@code 0} sees the cluster. */
    List<Integer> masterPorts() {
        String nodes = onNode(ports.get(0), node -> node.sync().clusterNodes());
        return Arrays.stream(nodes.split("\n"))
                .map(line -> line.split(" "))
                // masters that serve slots: right after the create a replica-to-be may still show as
                // a master without slots, until its REPLICATE has gone round the gossip
                .filter(fields -> fields.length > 8 && fields[2].contains("master"))
                .map(fields -> Integer.parseInt(fields[1].substring(fields[1].lastIndexOf(':') + 1).split("@")[0]))
                .sorted()
                .toList();
    }

    /** Runs {@code call} on a plain connection to the node on {@code port}. */
    <T> T onNode(int port, Function<StatefulRedisConnection<String, String>, T> call) {
        try (StatefulRedisConnection<String, String> node = nodeClient.connect(RedisURI.create("127.0.0.1", port))) {
            return call.apply(node);
        }
    }

    /** Stops every node this cluster started (waiting for each to exit) and deletes its directory. */
    void stop() {
        try {
            for (Process process : processes) {
                process.destroy();
            }
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
            nodeClient.shutdown();
            deleteRecursively(dir);
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

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            System.err.println("Could not delete " + dir + ": " + e);
        }
    }
}
