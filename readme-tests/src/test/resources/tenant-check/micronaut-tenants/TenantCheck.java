package quickstart;

import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.http.HttpRequest;
import io.micronaut.security.authentication.Authentication;
import io.micronaut.security.filters.AuthenticationFetcher;
import io.micronaut.security.rules.SecurityRule;
import io.micronaut.security.rules.SecurityRuleResult;
import jakarta.inject.Singleton;
import java.util.Map;
import org.reactivestreams.Publisher;

/**
 * Not a README block: readme-tests adds it to the Micronaut quick start with micronaut-security to
 * run the README's TenantFromAuthentication: an authentication fetcher that stands in for a token
 * check (the tenant from a test header) and a rule that lets authenticated requests through.
 */
final class TenantCheck {

    private TenantCheck() {
    }

    @Singleton
    static final class StandInAuthentication implements AuthenticationFetcher<HttpRequest<?>> {

        @Override
        public Publisher<Authentication> fetchAuthentication(HttpRequest<?> request) {
            String tenant = request.getHeaders().get("X-Test-Tenant");
            return tenant == null ? Publishers.empty()
                    : Publishers.just(Authentication.build("client", Map.of("tenant", tenant)));
        }
    }

    @Singleton
    static final class AuthenticatedOnly implements SecurityRule<HttpRequest<?>> {

        @Override
        public Publisher<SecurityRuleResult> check(HttpRequest<?> request, Authentication authentication) {
            return Publishers.just(authentication == null ? SecurityRuleResult.REJECTED : SecurityRuleResult.ALLOWED);
        }
    }
}
