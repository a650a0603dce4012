package dev.idempotency.examples;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Redis Cluster of one master holding all 16384 slots, from the local {@code redis-server}, on a
 * free loopback port, its files in a temporary directory: enough to run a service through
 * {@code redis-cluster://} (Lettuce's cluster client, slot routing) without six processes.
 * {@link #close()} kills the process and deletes the directory.
 */
public final class OneNodeRedisCluster implements AutoCloseable {

    private final Path dir;
    private final int port;
    private final Process process;

    private OneNodeRedisCluster(Path dir, int port, Process process) {
        this.dir = dir;
        this.port = port;
        this.process = process;
    }

    /** Whether {@code redis-server} runs here. */
    public static boolean available() {
        try {
            Process version = new ProcessBuilder("redis-server", "--version").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return version.waitFor(10, TimeUnit.SECONDS) && version.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Starts the node, gives it every slot and waits (up to 60 s) for {@code cluster_state:ok}. */
    public static OneNodeRedisCluster start() throws Exception {
        Path dir = Files.createTempDirectory("example-redis-cluster");
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Process process = new ProcessBuilder(List.of("redis-server", "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--cluster-enabled", "yes", "--cluster-config-file", dir.resolve("nodes.conf").toString(),
                "--dir", dir.toString(), "--save", "", "--appendonly", "no"))
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        OneNodeRedisCluster cluster = new OneNodeRedisCluster(dir, port, process);
        try {
            cluster.assignSlots();
            return cluster;
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
    }

    private void assignSlots() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + port));
        try {
            StatefulRedisConnection<String, String> connection = null;
            while (connection == null) {
                try {
                    connection = client.connect();
                } catch (RuntimeException e) {
                    if (System.nanoTime() > deadline || !process.isAlive()) {
                        throw new IllegalStateException("redis-server on " + port + " did not start: "
                                + Files.readString(dir.resolve("redis.log")), e);
                    }
                    Thread.sleep(100);
                }
            }
            try (StatefulRedisConnection<String, String> c = connection) {
                c.sync().clusterAddSlots(java.util.stream.IntStream.range(0, 16384).toArray());
                while (!c.sync().clusterInfo().contains("cluster_state:ok")) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the one-node cluster on " + port + " did not become ok");
                    }
                    Thread.sleep(100);
                }
            }
        } finally {
            client.shutdown();
        }
    }

    /** The {@code REDIS_URL} naming this cluster's seed node. */
    public String url() {
        return "redis-cluster://127.0.0.1:" + port;
    }

    /** How many keys the node holds. */
    public long keys() {
        RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + port));
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            return c.sync().dbsize();
        } finally {
            client.shutdown();
        }
    }

    @Override
    public void close() throws IOException {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
