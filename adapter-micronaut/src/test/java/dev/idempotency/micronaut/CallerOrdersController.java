package dev.idempotency.micronaut;

import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.security.annotation.Secured;
import io.micronaut.security.rules.SecurityRule;
import java.security.Principal;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The route of {@link CallerSeparationTest}: anonymous requests allowed, authenticated when they
 * carry credentials; each run a new order with the caller's name.
 */
@Controller("/caller-orders")
@Secured(SecurityRule.IS_ANONYMOUS)
@Requires(property = "test.routes", value = "callers")
class CallerOrdersController {

    final AtomicInteger runs = new AtomicInteger();

    @Post
    HttpResponse<Map<String, Object>> create(@Body String body, @Nullable Principal principal) {
        String caller = principal == null ? "anonymous" : principal.getName();
        return HttpResponse.created(Map.of("order", runs.incrementAndGet(), "caller", caller));
    }
}
