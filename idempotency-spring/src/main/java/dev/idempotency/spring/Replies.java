package dev.idempotency.spring;

import dev.idempotency.core.adapter.HttpReply;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/** Writes the engine's replies to a servlet response, byte for byte. */
final class Replies {

    private Replies() {
    }

    /** Exactly the reply's status, headers and body; Tomcat adds a {@code Date} only where the reply has none. */
    static void write(HttpReply reply, HttpServletResponse response) throws IOException {
        response.setStatus(reply.status());
        for (Map.Entry<String, List<String>> header : reply.headers().entrySet()) {
            List<String> values = header.getValue();
            for (int i = 0; i < values.size(); i++) {
                if (i == 0) {
                    response.setHeader(header.getKey(), values.get(i));
                } else {
                    response.addHeader(header.getKey(), values.get(i));
                }
            }
        }
        response.setContentLength(reply.body().length);
        response.getOutputStream().write(reply.body());
        response.flushBuffer();
    }
}
