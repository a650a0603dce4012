package dev.idempotency.examples.spring;

import dev.idempotency.examples.ProblemException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Refuses a request whose {@code Content-Type} is a wildcard ({@code *}{@code /*},
 * {@code application/*}) with 415 before Spring MVC reads its body: Spring refuses to hold such a
 * type as a request's content type, and the request would fail with a 500.
 */
@Configuration(proxyBeanMethods = false)
class WildcardContentTypes implements WebMvcConfigurer, HandlerInterceptor {

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(this);
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        String contentType = request.getContentType();
        if (contentType == null) {
            return true;
        }
        MediaType type;
        try {
            type = MediaType.parseMediaType(contentType);
        } catch (InvalidMediaTypeException e) {
            return true; // Spring MVC's own 415
        }
        if (type.isWildcardType() || type.isWildcardSubtype()) {
            throw ProblemException.unsupportedMediaType("The Content-Type must name one media type, not a wildcard");
        }
        return true;
    }
}
