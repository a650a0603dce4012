package tenants;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.security.Principal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.oauth2.core.DefaultOAuth2AuthenticatedPrincipal;
import org.springframework.security.oauth2.core.OAuth2AccessToken;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthentication;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Not a README block: readme-tests adds it to the Spring quick start's build, in the README's
 * package {@code tenants}, to run the README's {@code TenantFromToken} behind a filter that stands in
 * for Spring Security: it puts a bearer-token authentication with the test header's tenant claim on
 * the request, before the idempotency filter (order -90).
 */
@SpringBootApplication
public class TenantCheckServer {

    public static void main(String[] args) {
        SpringApplication.run(TenantCheckServer.class, args);
    }

    @Bean
    FilterRegistrationBean<Filter> standInAuthentication() {
        FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>((request, response, chain) -> {
            HttpServletRequest http = (HttpServletRequest) request;
            String tenant = http.getHeader("X-Test-Tenant");
            if (tenant == null) {
                ((HttpServletResponse) response).setStatus(401);
                return;
            }
            Principal token = new BearerTokenAuthentication(
                    new DefaultOAuth2AuthenticatedPrincipal("client", Map.of("tenant", tenant), List.of()),
                    new OAuth2AccessToken(OAuth2AccessToken.TokenType.BEARER, "token", Instant.now(),
                            Instant.now().plusSeconds(60)), List.of());
            chain.doFilter(new HttpServletRequestWrapper(http) {
                @Override
                public Principal getUserPrincipal() {
                    return token;
                }
            }, response);
        });
        registration.setOrder(-100);
        return registration;
    }

    @RestController
    static class Orders {

        private final AtomicLong ids = new AtomicLong();

        @PostMapping("/orders")
        ResponseEntity<String> create() {
            return ResponseEntity.status(201).contentType(MediaType.APPLICATION_JSON)
                    .body("{\"id\":" + ids.incrementAndGet() + "}");
        }
    }
}
