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
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

    private static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofSeconds(5);

    private final Path dir;
    private final Duration nodeTimeout;
    private final List<Integer> ports = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    private final Map<Integer, Process> byPort = new HashMap<>();
    private final Set<Integer> killed = new HashSet<>();
    private final RedisClient nodeClient = RedisClient.create();

    private LocalCluster(Path dir, Duration nodeTimeout) {
        this.dir = dir;
        this.nodeTimeout = nodeTimeout;
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
        return start(DEFAULT_NODE_TIMEOUT);
    }

    /**
     * As {@link #start()}, with {@code cluster-node-timeout} {@code nodeTimeout}: how long a master
     * must be unreachable before the others mark it failed and its replica takes over.
     */
    static LocalCluster start(Duration nodeTimeout) throws IOException, InterruptedException {
        LocalCluster cluster = new LocalCluster(Files.createTempDirectory("idempotency-redis-cluster"), nodeTimeout);
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
            Process process = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--cluster-enabled", "yes", "--cluster-config-file", dir.resolve("nodes-" + port + ".conf").toString(),
                    "--cluster-node-timeout", Long.toString(nodeTimeout.toMillis()), "--dir", dir.toString(), "--save", "", "--appendonly", "no",
                    // a replica's first sync starts at once, not after the default 5 s of waiting for others
                    "--repl-diskless-sync-delay", "0",
                    "--daemonize", "no")
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis-" + port + ".log").toFile())
                    .start();
            processes.add(process);
            byPort.put(port, process);
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
        // every replica attached and through its first sync: until then it cannot take over a master
        await("three replicas in sync").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .ignoreExceptions().until(() -> ports.stream().filter(port -> {
                    String replication = onNode(port, node -> node.sync().info("replication"));
                    return replication.contains("role:slave") && replication.contains("master_link_status:up")
                            && replication.contains("master_sync_in_progress:0");
                }).count() == NODES / 2);
    }

    /** Seed URIs of every node. */
    List<RedisURI> seeds() {
        return ports.stream().map(port -> RedisURI.create("127.0.0.1", port)).toList();
    }

    /** The ports of the masters that serve slots, as the first live node sees the cluster. */
    List<Integer> masterPorts() {
        return nodeLines(livePorts().get(0)).stream()
                // masters that serve slots: right after the create a replica-to-be may still show as
                // a master without slots, until its REPLICATE has gone round the gossip
                .filter(fields -> fields.length > 8 && fields[2].contains("master") && !fields[2].contains("fail"))
                .map(LocalCluster::portOf)
                .sorted()
                .toList();
    }

    /** The ports of the nodes not {@link #kill killed}. */
    List<Integer> livePorts() {
        return ports.stream().filter(port -> !killed.contains(port)).toList();
    }

    /** The ports of the replicas of the master on {@code masterPort}, as that master sees the cluster. */
    List<Integer> replicasOf(int masterPort) {
        List<String[]> lines = nodeLines(masterPort);
        String masterId = lines.stream().filter(fields -> fields[2].contains("myself")).findFirst().orElseThrow()[0];
        return lines.stream().filter(fields -> fields[2].contains("slave") && fields[3].equals(masterId))
                .map(LocalCluster::portOf).sorted().toList();
    }

    /** The slots the master on {@code masterPort} serves, as it sees itself. */
    BitSet slotsOf(int masterPort) {
        String[] self = nodeLines(masterPort).stream().filter(fields -> fields[2].contains("myself")).findFirst()
                .orElseThrow();
        BitSet slots = new BitSet(16384);
        for (int i = 8; i < self.length; i++) {
            String range = self[i];
            if (range.startsWith("[")) {
                continue; // a slot being migrated or imported
            }
            int dash = range.indexOf('-');
            int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
            int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
            slots.set(from, to + 1);
        }
        return slots;
    }

    /**
     * Kills the node on {@code port} with SIGKILL (no shutdown, no last write to its replicas) and
     * waits until the process is gone.
     */
    void kill(int port) throws InterruptedException {
        Process process = byPort.get(port);
        if (process == null) {
            throw new IllegalArgumentException("No node on " + port);
        }
        killed.add(port);
        process.destroyForcibly(); // SIGKILL on Unix
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("redis-server on " + port + " did not die of SIGKILL");
        }
    }

    /**
     * Waits, up to {@code atMost}, until every live node reports {@code cluster_state:ok} and sees
     * {@code promoted} as a master serving slots and the killed {@code failed} as failed and
     * serving none: the replica has taken over.
     */
    void awaitFailover(int failed, int promoted, Duration atMost) {
        try {
            awaitFailoverOnce(failed, promoted, atMost);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            String nodes;
            try {
                nodes = onNode(livePorts().get(0), node -> node.sync().clusterNodes());
            } catch (RuntimeException unknown) {
                nodes = unknown.toString();
            }
            String log;
            try {
                List<String> lines = Files.readAllLines(dir.resolve("redis-" + promoted + ".log"));
                log = String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
            } catch (IOException unreadable) {
                log = unreadable.toString();
            }
            throw new IllegalStateException("No failover of " + failed + " to " + promoted + " within " + atMost
                    + "; cluster nodes:\n" + nodes + "\nlog of " + promoted + ":\n" + log, e);
        }
    }

    private void awaitFailoverOnce(int failed, int promoted, Duration atMost) {
        await("failover of " + failed + " to " + promoted).atMost(atMost).pollInterval(Duration.ofMillis(100))
                .ignoreExceptions().until(() -> livePorts().stream().allMatch(port -> {
                    if (!onNode(port, node -> node.sync().clusterInfo()).contains("cluster_state:ok")) {
                        return false;
                    }
                    List<String[]> lines = nodeLines(port);
                    boolean promotedServes = lines.stream().anyMatch(fields -> portOf(fields) == promoted
                            && fields[2].contains("master") && fields.length > 8);
                    boolean failedServesNone = lines.stream().noneMatch(fields -> portOf(fields) == failed
                            && fields.length > 8);
                    return promotedServes && failedServesNone;
                }));
    }

    private List<String[]> nodeLines(int port) {
        String nodes = onNode(port, node -> node.sync().clusterNodes());
        return Arrays.stream(nodes.split("\n")).map(String::strip).filter(line -> !line.isEmpty())
                .map(line -> line.split(" ")).toList();
    }

    private static int portOf(String[] fields) {
        String address = fields[1].split("@")[0];
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
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
