package dev.idempotency.jakartars;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.store.InMemoryStore;
import dev.idempotency.testkit.RawResponse;
import dev.idempotency.testkit.internal.RawHttp;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A writer that fails: while the status line has not gone out — nothing written, or a flush that
 * Jersey still held back, its buffer not full — the client gets Jersey's 500, the key is released and a
 * retry runs again; once the status line went out, the response counts as sent and a retry gets 410,
 * never a second run.
 */
class WriterFailuresTest {

    private static final AtomicInteger EARLY = new AtomicInteger();
    private static final AtomicInteger HELD = new AtomicInteger();
    private static final AtomicInteger LATE = new AtomicInteger();
    /** More than Jersey holds back before it commits the status line (8 KiB). */
    private static final byte[] PAST_THE_BUFFER = "x".repeat(16 * 1024).getBytes(StandardCharsets.UTF_8);

    private static IdempotencyEngine engine;
    private static JerseyServer server;

    @Path("/")
    public static class Streams {
        @POST
        @Path("early")
        public Response early() {
            EARLY.incrementAndGet();
            StreamingOutput failing = out -> {
                throw new IOException("the source is gone");
            };
            return Response.ok(failing, "text/plain").build();
        }

        @POST
        @Path("held")
        public Response held() {
            HELD.incrementAndGet();
            StreamingOutput failing = out -> {
                out.write("chunk 1\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
                throw new IOException("the source is gone");
            };
            return Response.status(201).entity(failing).type("text/plain").build();
        }

        @POST
        @Path("late")
        public Response late() {
            LATE.incrementAndGet();
            StreamingOutput failing = out -> {
                out.write(PAST_THE_BUFFER);
                out.flush();
                throw new IOException("the source is gone");
            };
            return Response.ok(failing, "text/plain").header("Location", "/streams/1").build();
        }
    }

    @BeforeAll
    static void start() throws Exception {
        engine = new IdempotencyEngine(new InMemoryStore(), IdempotencyConfig.builder().build());
        server = JerseyServer.start(new ResourceConfig(Streams.class).register(IdempotencyFeature.of(engine)));
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
    }

    private static RawResponse post(String path, String key) throws IOException {
        return RawHttp.post(server.baseUri(), path, key, "{}");
    }

    @Test
    void aWriterFailingBeforeAnyByteWentOutReleasesTheKey() throws Exception {
        String key = "key-" + UUID.randomUUID();
        RawResponse first = post("/early", key);
        RawResponse retry = post("/early", key);

        assertThat(first.status()).isEqualTo(500);
        assertThat(retry.status()).as("released, not 409").isEqualTo(500);
        assertThat(EARLY.get()).isEqualTo(2);
    }

    @Test
    void aStreamFailingAfterAFlushJerseyHeldBackIsAnsweredWith500AndReleasesTheKey() throws Exception {
        String key = "key-" + UUID.randomUUID();
        RawResponse first = post("/held", key);
        RawResponse retry = post("/held", key);

        assertThat(first.status()).as("the status line the client saw").isEqualTo(500);
        assertThat(retry.status()).as("released, not 'already applied (status 201)'").isEqualTo(500);
        assertThat(HELD.get()).isEqualTo(2);
    }

    @Test
    void aWriterFailingAfterItsStatusLineWentOutNeverRunsTwice() throws Exception {
        String key = "key-" + UUID.randomUUID();
        try {
            post("/late", key);
        } catch (IOException cut) {
            // the connection may end mid-body: the client saw part of it either way
        }
        RawResponse retry = post("/late", key);

        assertThat(retry.status()).isEqualTo(410);
        assertThat(retry.bodyText()).contains("idempotency_response_not_stored");
        assertThat(retry.header("Location")).hasValueSatisfying(location -> assertThat(location).endsWith("/streams/1"));
        assertThat(LATE.get()).isEqualTo(1);
    }
}
