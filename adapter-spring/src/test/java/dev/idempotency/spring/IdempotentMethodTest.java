package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.idempotency.core.call.CallInFlightException;
import dev.idempotency.core.call.IdempotentCalls;
import dev.idempotency.core.call.KeyReusedException;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import dev.idempotency.testkit.InterceptingStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * {@link IdempotentMethod} on a Spring bean, over an in-memory store bean (the store does not matter
 * here; {@link IdempotentMethodPostgresTest} has the atomic mode on PostgreSQL): runs once per key,
 * replays its generic result, refuses other arguments, lets one of concurrent duplicates run, releases
 * the key when the method throws, maps an outage; and nothing applies it without a store bean.
 */
class IdempotentMethodTest {

    record Charge(String id, String account, long cents) {
    }

    record Receipt(String id, long cents, int run) {
    }

    static final class Declined extends Exception {
    }

    /** The annotated bean: counts its runs (read through methods: the proxy's own fields are not the bean's). */
    static class Payments {

        private final AtomicInteger runs = new AtomicInteger();
        private volatile CountDownLatch hold = new CountDownLatch(0);
        private volatile Exception failure;

        public int runs() {
            return runs.get();
        }

        public void hold(CountDownLatch latch) {
            hold = latch;
        }

        public void fail(Exception e) {
            failure = e;
        }

        @IdempotentMethod(scope = "payments", key = "#charge.id")
        public Receipt charge(Charge charge) throws Exception {
            int run = runs.incrementAndGet();
            hold.await(10, TimeUnit.SECONDS);
            if (failure != null) {
                throw failure;
            }
            return new Receipt("r-" + charge.id(), charge.cents(), run);
        }

        @IdempotentMethod(scope = "payments.split", key = "#p0.id")
        public List<Receipt> split(Charge charge, int parts) {
            int run = runs.incrementAndGet();
            List<Receipt> receipts = new ArrayList<>();
            for (int i = 0; i < parts; i++) {
                receipts.add(new Receipt("r-" + charge.id() + "-" + i, charge.cents() / parts, run));
            }
            return receipts;
        }

        @IdempotentMethod(scope = "payments.noted", key = "#charge.id", input = "charge")
        public Receipt noted(String note, Charge charge) {
            return new Receipt("r-" + charge.id(), charge.cents(), runs.incrementAndGet());
        }

        @IdempotentMethod(scope = "payments.void", key = "#id")
        public void forget(String id) {
            runs.incrementAndGet();
        }

        @IdempotentMethod(scope = "payments.typo", key = "#id", input = "ids")
        public void typo(String id) {
            runs.incrementAndGet();
        }

        @IdempotentMethod(scope = "payments.later", key = "#id")
        public CompletableFuture<Receipt> later(String id) {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(new Receipt(id, 1, 1));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Application {

        @Bean
        Payments payments() {
            return new Payments();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(Application.class)
    static class WithStore {

        static final AtomicBoolean DOWN = new AtomicBoolean();

        @Bean
        Store store() {
            return new InterceptingStore(new InMemoryStore(), operation -> {
                if (DOWN.get()) {
                    throw new StorageUnavailableException(StorageUnavailableException.Reason.UNREACHABLE, "down", null);
                }
            });
        }
    }

    /** A non-blocking store only, as a WebFlux application on R2DBC has. */
    @Configuration(proxyBeanMethods = false)
    @Import(Application.class)
    static class WithAsyncStore {

        @Bean(destroyMethod = "shutdown")
        ExecutorService storeThreads() {
            return Executors.newFixedThreadPool(2);
        }

        @Bean
        AsyncStore store(ExecutorService storeThreads) {
            return AsyncStore.of(new InMemoryStore(), storeThreads);
        }
    }

    private ConfigurableApplicationContext context;

    private Payments start(Class<?> application) {
        SpringApplication spring = new SpringApplication(application);
        spring.setWebApplicationType(WebApplicationType.NONE);
        context = spring.run("--spring.main.banner-mode=off", "--idempotency.enabled=true",
                "--spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration");
        return context.getBean(Payments.class);
    }

    @AfterEach
    void stop() {
        WithStore.DOWN.set(false);
        if (context != null) {
            context.close();
        }
    }

    @Test
    void theFirstCallRunsAndARepeatReturnsAnEqualValueWithoutRunning() throws Exception {
        Payments payments = start(WithStore.class);
        Charge charge = new Charge("c-1", "acct-1", 500);

        Receipt first = payments.charge(charge);
        Receipt repeat = payments.charge(new Charge("c-1", "acct-1", 500));

        assertThat(first).isEqualTo(new Receipt("r-c-1", 500, 1));
        assertThat(repeat).isEqualTo(first);
        assertThat(payments.runs()).isEqualTo(1);
        assertThat(payments.charge(new Charge("c-2", "acct-1", 500))).isEqualTo(new Receipt("r-c-2", 500, 2));
        assertThat(payments.runs()).isEqualTo(2);
    }

    @Test
    void aGenericResultIsReplayedAsTheMethodsReturnType() {
        Payments payments = start(WithStore.class);
        Charge charge = new Charge("c-1", "acct-1", 900);

        List<Receipt> first = payments.split(charge, 3);
        List<Receipt> repeat = payments.split(charge, 3);

        assertThat(repeat).isEqualTo(first).hasSize(3).allSatisfy(r -> assertThat(r).isInstanceOf(Receipt.class));
        assertThat(payments.runs()).isEqualTo(1);
    }

    @Test
    void anotherArgumentUnderTheSameKeyIsRefused() throws Exception {
        Payments payments = start(WithStore.class);
        payments.charge(new Charge("c-1", "acct-1", 500));

        assertThatThrownBy(() -> payments.charge(new Charge("c-1", "acct-1", 501)))
                .isInstanceOf(KeyReusedException.class).hasMessageContaining("scope payments");
        payments.split(new Charge("c-1", "acct-1", 500), 2); // another scope: another key
        assertThatThrownBy(() -> payments.split(new Charge("c-1", "acct-1", 500), 3)).as("every argument is input")
                .isInstanceOf(KeyReusedException.class);
        assertThat(payments.runs()).isEqualTo(2);
    }

    @Test
    void onlyTheNamedArgumentsAreTheInput() {
        Payments payments = start(WithStore.class);
        Charge charge = new Charge("c-1", "acct-1", 500);

        Receipt first = payments.noted("first try", charge);
        Receipt repeat = payments.noted("second try", charge);

        assertThat(repeat).isEqualTo(first);
        assertThat(payments.runs()).isEqualTo(1);
        assertThatThrownBy(() -> payments.noted("first try", new Charge("c-1", "acct-2", 500)))
                .isInstanceOf(KeyReusedException.class);
    }

    @Test
    void concurrentDuplicatesRunOnceAndTheOthersAreInFlight() throws Exception {
        Payments payments = start(WithStore.class);
        int threads = 8;
        CountDownLatch hold = new CountDownLatch(1);
        payments.hold(hold);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Receipt>> calls = new ArrayList<>();
            CountDownLatch start = new CountDownLatch(1);
            for (int i = 0; i < threads; i++) {
                calls.add(pool.submit(() -> {
                    start.await();
                    return payments.charge(new Charge("c-1", "acct-1", 500));
                }));
            }
            start.countDown();
            // the one that runs holds the key until released: every other one is answered meanwhile
            await().atMost(10, TimeUnit.SECONDS).until(() -> calls.stream().filter(Future::isDone).count() == threads - 1);
            List<Future<Receipt>> running = calls.stream().filter(call -> !call.isDone()).toList();
            for (Future<Receipt> call : calls) {
                if (call.isDone()) {
                    assertThatThrownBy(call::get).hasCauseInstanceOf(CallInFlightException.class);
                }
            }
            hold.countDown();
            assertThat(running).hasSize(1);
            Receipt executed = running.get(0).get(10, TimeUnit.SECONDS);
            assertThat(payments.runs()).isEqualTo(1);
            assertThat(payments.charge(new Charge("c-1", "acct-1", 500))).isEqualTo(executed);
            assertThat(payments.runs()).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aMethodThatThrowsReleasesTheKeyAndItsExceptionReachesTheCaller() throws Exception {
        Payments payments = start(WithStore.class);
        Declined declined = new Declined();
        payments.fail(declined);

        assertThatThrownBy(() -> payments.charge(new Charge("c-1", "acct-1", 500))).isSameAs(declined);
        payments.fail(null);
        assertThat(payments.charge(new Charge("c-1", "acct-1", 500))).isEqualTo(new Receipt("r-c-1", 500, 2));
        assertThat(payments.runs()).isEqualTo(2);
    }

    @Test
    void aVoidMethodRunsOnce() {
        Payments payments = start(WithStore.class);

        payments.forget("f-1");
        payments.forget("f-1");

        assertThat(payments.runs()).isEqualTo(1);
    }

    @Test
    void anOutageIsStorageUnavailableAndTheMethodDoesNotRun() {
        Payments payments = start(WithStore.class);
        WithStore.DOWN.set(true);

        assertThatThrownBy(() -> payments.charge(new Charge("c-1", "acct-1", 500)))
                .isInstanceOf(StorageUnavailableException.class);
        assertThat(payments.runs()).isEqualTo(0);
    }

    @Test
    void aMethodWhoseResultComesLaterIsRefused() {
        Payments payments = start(WithStore.class);

        assertThatThrownBy(() -> payments.later("l-1")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CompletableFuture");
        assertThat(payments.runs()).isEqualTo(0);
    }

    @Test
    void aNullKeyOrAnInputThatIsNoParameterIsRefusedWithoutRunning() {
        Payments payments = start(WithStore.class);

        assertThatThrownBy(() -> payments.charge(new Charge(null, "acct-1", 500)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("(#charge.id) is null");
        assertThatThrownBy(() -> payments.typo("t-1"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("names ids, which is not a parameter");
        assertThat(payments.runs()).isZero();
    }

    @Test
    void overAnAsyncStoreBeanTooTheFirstCallRunsAndARepeatReplays() throws Exception {
        Payments payments = start(WithAsyncStore.class);

        Receipt first = payments.charge(new Charge("c-1", "acct-1", 500));

        assertThat(payments.charge(new Charge("c-1", "acct-1", 500))).isEqualTo(first);
        assertThat(payments.runs()).isEqualTo(1);
    }

    @Test
    void withoutAStoreBeanNothingAppliesTheAnnotation() throws Exception {
        Payments payments = start(Application.class);

        payments.charge(new Charge("c-1", "acct-1", 500));
        payments.charge(new Charge("c-1", "acct-1", 500));

        assertThat(context.getBeansOfType(IdempotentCalls.class)).isEmpty();
        assertThat(payments.runs()).isEqualTo(2);
    }
}
