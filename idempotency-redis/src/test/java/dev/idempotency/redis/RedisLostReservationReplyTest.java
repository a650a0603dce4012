package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.testkit.internal.TcpProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Redis case: the reservation script ran, but its reply never came back (a TCP proxy
 * in front of Redis drops it, as a failover does), so the call timed out — 503, no handler ran.
 * The retry must not get 409 for the lease (30 s here) from a record nobody runs under.
 */
class RedisLostReservationReplyTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration FAR_BELOW_THE_LEASE = Duration.ofSeconds(5);
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
    private static final String BODY = "{\"item\":\"book\"}";

    private final String prefix = "test-idem:lost:" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private final List<AutoCloseable> opened = new ArrayList<>();
    private final List<RedisClient> clients = new ArrayList<>();

    @AfterEach
    void shutDown() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
        clients.forEach(client -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    }

    @Test
    void theRetryRunsAtOnceOnTheBlockingFace() throws Exception {
        retryRunsAtOnce(store -> new IdempotencyEngine(store, config()));
    }

    @Test
    void theRetryRunsAtOnceOnTheAsynchronousFace() throws Exception {
        retryRunsAtOnce(store -> new IdempotencyEngine(store.async(), config()));
    }

    private void retryRunsAtOnce(Function<RedisStore, IdempotencyEngine> engineOver) throws Exception {
        RedisURI target = TestRedis.standaloneUri();
        assumeTrue(List.of("127.0.0.1", "localhost").contains(target.getHost()), "the proxy forwards to loopback");
        TcpProxy proxy = new TcpProxy(target.getPort());
        opened.add(proxy);
        RedisStore proxied = store(RedisURI.builder(target).withHost("127.0.0.1").withPort(proxy.port()).build());
        RedisStore direct = store(target);
        IdempotencyEngine engine = engineOver.apply(proxied);
        opened.add(0, engine);
        String key = "lost-" + UUID.randomUUID();
        RecordKey recordKey = new RecordKey("default", "POST", "/orders", key);

        engine.checkStorage(); // connected: the next command on the connection is the reservation
        proxy.dropReplies(true);
        CompletableFuture<Decision> first = CompletableFuture.supplyAsync(() -> engine.beforeAsync(post(key)))
                .thenCompose(decision -> decision);
        await().atMost(10, TimeUnit.SECONDS).until(() -> direct.find(recordKey, Instant.now()).isPresent());
        Decision lost = first.get(10, TimeUnit.SECONDS);
        assertThat(lost).isInstanceOf(Decision.Respond.class);
        assertThat(((Decision.Respond) lost).reply().status()).as("the call timed out: 503").isEqualTo(503);
        // The connection is out of step with the dropped reply: cut it, as a failover would, and come back.
        proxy.stop();
        proxy.dropReplies(false);
        proxy.start();

        long restored = System.nanoTime();
        List<Integer> answers = new ArrayList<>();
        Decision retry = await().atMost(FAR_BELOW_THE_LEASE).pollInterval(Duration.ofMillis(20))
                .until(() -> engine.beforeAsync(post(key)).toCompletableFuture().get(10, TimeUnit.SECONDS),
                        decision -> {
                            if (decision instanceof Decision.Respond respond) {
                                answers.add(respond.reply().status());
                            }
                            return decision instanceof Decision.Proceed;
                        });

        assertThat(Duration.ofNanos(System.nanoTime() - restored)).isLessThan(FAR_BELOW_THE_LEASE);
        assertThat(answers).as("while Lettuce reconnects: 503, never 409 in progress").doesNotContain(409);
        ((Decision.Proceed) retry).execution().finish(created());
        IdempotencyRecord record = direct.find(recordKey, Instant.now()).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
    }

    private RedisStore store(RedisURI uri) {
        RedisClient client = RedisClient.create();
        clients.add(client);
        RedisStore store = RedisStore.builder(client, uri).keyPrefix(prefix).commandTimeout(COMMAND_TIMEOUT).build();
        opened.add(0, store); // closed before the proxy
        return store;
    }

    private static IdempotencyConfig config() {
        return IdempotencyConfig.builder().lease(LEASE).ttl(Duration.ofMinutes(1)).renewLease(false).build();
    }

    private static RequestView post(String key) {
        return RequestView.of("POST", "/orders", Map.of("Content-Type", List.of("application/json"),
                "Idempotency-Key", List.of(key)), BODY.getBytes(StandardCharsets.UTF_8));
    }

    private static CapturedResponse created() {
        return CapturedResponse.of(201, Map.of("Content-Type", List.of("application/json")),
                "{\"order\":1}".getBytes(StandardCharsets.UTF_8));
    }
}
