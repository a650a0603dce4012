package dev.idempotency.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.testkit.RawResponse;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** A server that answers and resets the connection before reading the whole request. */
class RawHttpTest {

    private static final byte[] BODY = "x".repeat(200_000).getBytes(StandardCharsets.US_ASCII);

    @Test
    void aCompleteAnswerFollowedByAResetIsKept() throws Exception {
        RawResponse response = againstServerAnswering("HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n"
                + "connection: close\r\n\r\nno");

        assertThat(response.status()).isEqualTo(400);
        assertThat(new String(response.body(), StandardCharsets.US_ASCII)).isEqualTo("no");
    }

    @Test
    void aResetBeforeTheWholeAnswerIsAFailure() {
        assertThatThrownBy(() -> againstServerAnswering("HTTP/1.1 400 Bad Request\r\ncontent-length: 10\r\n\r\nno"))
                .isInstanceOf(SocketException.class);
    }

    /** Reads the request head only, writes {@code answer}, then closes with SO_LINGER 0: a reset. */
    private static RawResponse againstServerAnswering(String answer) throws Exception {
        try (ServerSocket server = new ServerSocket(0)) {
            CompletableFuture<Void> serving = CompletableFuture.runAsync(() -> {
                try (Socket socket = server.accept()) {
                    InputStream in = socket.getInputStream();
                    int matched = 0;
                    byte[] end = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
                    while (matched < end.length) {
                        int b = in.read();
                        matched = b == end[matched] ? matched + 1 : (b == end[0] ? 1 : 0);
                    }
                    socket.getOutputStream().write(answer.getBytes(StandardCharsets.US_ASCII));
                    socket.getOutputStream().flush();
                    Thread.sleep(200); // the answer reaches the client before the reset
                    socket.setSoLinger(true, 0);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try {
                return RawHttp.post(URI.create("http://127.0.0.1:" + server.getLocalPort()), "/orders",
                        List.of("Idempotency-Key: \u0000!".getBytes(StandardCharsets.ISO_8859_1)),
                        "application/json", BODY);
            } finally {
                serving.join();
            }
        }
    }
}
