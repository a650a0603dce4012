package dev.idempotency.framework.servlet;

import dev.idempotency.core.adapter.HttpReply;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the servlet-based adapters read off a response for the engine, and write to it for the engine. */
public final class ServletResponses {

    private ServletResponses() {
    }

    /** The headers as set, with the content type among them even where the container keeps it apart. */
    public static Map<String, List<String>> headersOf(HttpServletResponse response) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (String name : response.getHeaderNames()) {
            headers.computeIfAbsent(name, n -> new ArrayList<>(response.getHeaders(n)));
        }
        String contentType = response.getContentType();
        if (contentType != null && headers.keySet().stream().noneMatch("Content-Type"::equalsIgnoreCase)) {
            headers.put("Content-Type", List.of(contentType));
        }
        return headers;
    }

    /** Exactly the reply's status, headers and body; Tomcat adds a {@code Date} only where the reply has none. */
    public static void write(HttpReply reply, HttpServletResponse response) throws IOException {
        writeHead(reply, response);
        response.setContentLength(reply.body().length);
        response.getOutputStream().write(reply.body());
        response.flushBuffer();
    }

    /** The reply's status and headers, each replacing one of its name set before. */
    public static void writeHead(HttpReply reply, HttpServletResponse response) {
        response.setStatus(reply.status());
        reply.headers().forEach((name, values) -> {
            for (int i = 0; i < values.size(); i++) {
                if (i == 0) {
                    response.setHeader(name, values.get(i));
                } else {
                    response.addHeader(name, values.get(i));
                }
            }
        });
    }
}
