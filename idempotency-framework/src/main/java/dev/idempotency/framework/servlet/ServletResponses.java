package dev.idempotency.framework.servlet;

import jakarta.servlet.http.HttpServletResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the servlet-based adapters read off a response for the engine. */
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
}
