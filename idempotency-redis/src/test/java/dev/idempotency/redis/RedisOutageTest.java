package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.testkit.internal.TcpProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A Redis that is not there, or does not answer: 503 material, within the command timeout plus a second. */
class RedisOutageTest {

    private static final Duration TIMEOUT = Duration.ofMillis(500);
    private static final Duration BOUND = TIMEOUT.plusSeconds(1);
    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    private static final String FP = "a".repeat(64);
    private static final RecordKey KEY = new RecordKey("t", "POST", "/orders", "outage-key");

    private final RedisClient client = RedisClient.create();
    private final List<AutoCloseable> opened = new CopyOnWriteArrayList<>();

    @AfterEach
    void shutDown() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    private RedisStore storeOnPort(int port) {
        return store(RedisURI.create("redis://127.0.0.1:" + port));
    }

    private RedisStore store(RedisURI uri) {
        RedisStore store = RedisStore.builder(client, uri).commandTimeout(TIMEOUT).build();
        opened.add(store);
        return store;
    }

    private static int portWhereNothingListens() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** A server that accepts connections and never says a word. */
    private int silentServer() throws IOException {
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        opened.add(server);
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    Socket accepted = server.accept();
                    opened.add(accepted);
                }
            } catch (IOException closed) {
                // the test is over
            }
        }, "silent-redis");
        acceptor.setDaemon(true);
        acceptor.start();
        return server.getLocalPort();
    }

    private static void assertUnavailableInTime(ThrowingCallable call, StorageUnavailableException.Reason reason,
                                                int port) {
        long start = System.nanoTime();
        assertThatThrownBy(call).isInstanceOfSatisfying(StorageUnavailableException.class, e -> {
            assertThat(e.reason()).isEqualTo(reason);
            assertThat(e.getMessage()).doesNotContain(Integer.toString(port)).doesNotContain("127.0.0.1");
        });
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(BOUND);
    }

    @Test
    void blockingCallsOnARefusedPortThrowStorageUnavailable() throws IOException {
        int port = portWhereNothingListens();
        RedisStore store = storeOnPort(port);

        assertUnavailableInTime(() -> store.reserve(KEY, FP, NOW, Duration.ofSeconds(30), Duration.ofHours(1)),
                StorageUnavailableException.Reason.UNREACHABLE, port);
        assertUnavailableInTime(() -> store.find(KEY, NOW), StorageUnavailableException.Reason.UNREACHABLE, port);
        assertUnavailableInTime(() -> store.insertCompleted(KEY, FP, new StoredResponse(200, null, Map.of(), new byte[0]),
                NOW, Duration.ofHours(1)), StorageUnavailableException.Reason.UNREACHABLE, port);
        assertUnavailableInTime(store::check, StorageUnavailableException.Reason.UNREACHABLE, port);
    }

    @Test
    void asyncStagesOnARefusedPortFailWithStorageUnavailable() throws IOException {
        RedisStore store = storeOnPort(portWhereNothingListens());

        assertFailsInTime(store.async().reserve(KEY, FP, NOW, Duration.ofSeconds(30), Duration.ofHours(1))
                .toCompletableFuture());
        assertFailsInTime(store.async().find(KEY, NOW).toCompletableFuture());
        assertFailsInTime(store.async().check().toCompletableFuture());
    }

    @Test
    void aServerThatNeverAnswersRunsIntoTheCommandTimeout() throws IOException {
        int port = silentServer();
        RedisStore store = storeOnPort(port);

        assertUnavailableInTime(() -> store.reserve(KEY, FP, NOW, Duration.ofSeconds(30), Duration.ofHours(1)),
                StorageUnavailableException.Reason.BUSY, port);
        assertUnavailableInTime(() -> store.find(KEY, NOW), StorageUnavailableException.Reason.BUSY, port);
        assertFailsInTime(store.async().find(KEY, NOW).toCompletableFuture());
    }

    @Test
    void aRedisThatGoesAwayAfterConnectingIsUnreachableAndServesAgainWhenBack() throws IOException {
        RedisURI target = TestRedis.standaloneUri();
        assumeTrue(List.of("127.0.0.1", "localhost").contains(target.getHost()), "the proxy forwards to loopback");
        try (TcpProxy proxy = new TcpProxy(target.getPort())) {
            RedisStore store = store(RedisURI.builder(target).withHost("127.0.0.1").withPort(proxy.port()).build());
            RecordKey key = new RecordKey("t", "POST", "/orders", "outage-" + java.util.UUID.randomUUID());
            assertThat(store.find(key, NOW)).isEmpty();

            proxy.stop();
            assertUnavailableInTime(() -> store.reserve(key, FP, NOW, Duration.ofSeconds(30), Duration.ofHours(1)),
                    StorageUnavailableException.Reason.UNREACHABLE, proxy.port());
            assertFailsInTime(store.async().find(key, NOW).toCompletableFuture());

            proxy.start();
            await().atMost(Duration.ofSeconds(30)).ignoreExceptionsInstanceOf(StorageUnavailableException.class)
                    .until(() -> store.find(key, NOW).isEmpty());
            assertThat(store.reserve(key, FP, NOW, Duration.ofSeconds(30), Duration.ofSeconds(5)))
                    .isInstanceOf(dev.idempotency.core.store.ReserveResult.Acquired.class);
            assertThat(store.reserve(key, FP, NOW, Duration.ofSeconds(30), Duration.ofSeconds(5)))
                    .isInstanceOf(dev.idempotency.core.store.ReserveResult.Existing.class);
        }
    }

    private static void assertFailsInTime(CompletableFuture<?> stage) {
        assertThat(stage).failsWithin(BOUND).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOf(StorageUnavailableException.class);
    }
}
