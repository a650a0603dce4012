package dev.idempotency.micronaut;

import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** The route of {@link TenantFromAuthenticationTest}: records who it ran for. */
@Controller("/tenant-orders")
@Requires(property = "test.routes", value = "tenants")
class TenantOrdersController {

    final List<String> runsBy = new CopyOnWriteArrayList<>();
    private final AtomicInteger orders = new AtomicInteger();

    @Post
    HttpResponse<Map<String, Object>> create(@Body String body, @io.micronaut.core.annotation.Nullable Principal principal) {
        String who = principal == null ? "anonymous" : principal.getName();
        runsBy.add(who);
        return HttpResponse.created(Map.of("order", orders.incrementAndGet(), "user", who));
    }
}
