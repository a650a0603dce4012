package dev.idempotency.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * BlockHound is installed for the whole test run (blockhound-junit-platform), so the module's other
 * tests would fail on a blocking call on a Netty event loop: here it is shown to catch one, on a
 * Reactor non-blocking thread and on Reactor Netty's own event loop behind a real request.
 */
class BlockHoundTest {

    private static final AtomicReference<Throwable> CAUGHT = new AtomicReference<>();
    private static final AtomicReference<String> THREAD = new AtomicReference<>();

    private static ConfigurableApplicationContext context;
    private static URI base;

    @BeforeAll
    static void start() {
        context = new SpringApplication(SleepyService.class).run("--server.port=0", "--server.address=127.0.0.1");
        base = WebFluxConformanceTest.baseUri(context);
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    @Test
    void aSleepOnANonBlockingSchedulerIsRefused() {
        assertThatThrownBy(() -> Mono.fromCallable(() -> {
            Thread.sleep(1);
            return "slept";
        }).subscribeOn(Schedulers.parallel()).block())
                .hasRootCauseInstanceOf(BlockingOperationError.class)
                .hasMessageContaining("Thread.sleep");
    }

    @Test
    void aSleepOnANettyEventLoopIsRefused() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(base.resolve("/sleep"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(CAUGHT.get()).isInstanceOf(BlockingOperationError.class);
        assertThat(THREAD.get()).startsWith("reactor-http-");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Sleepy.class)
    static class SleepyService {
    }

    /** A handler that blocks where it must not: on the event loop that delivered the request. */
    @RestController
    static class Sleepy {

        @PostMapping("/sleep")
        String sleep() throws InterruptedException {
            THREAD.set(Thread.currentThread().getName());
            try {
                Thread.sleep(1);
            } catch (BlockingOperationError e) {
                CAUGHT.set(e);
                throw e;
            }
            return "slept";
        }
    }
}
