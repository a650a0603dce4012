package dev.idempotency.jakartars;

import jakarta.ws.rs.ServiceUnavailableException;

/**
 * Tells the runtime's own answer to an {@code AsyncResponse} timeout from a resource's 503. When a
 * suspended request times out and no {@code TimeoutHandler} answers (or the handler neither resumes
 * nor extends it), the runtime resumes it with a {@link ServiceUnavailableException} it creates
 * itself: Jersey in its {@code AsyncResponder}'s default timeout handler, Quarkus REST in
 * {@code AsyncResponseImpl}'s timer. That is where the exception was made, its stack trace's first
 * frame; a resource's own 503 is made elsewhere. (Jersey reports it wrapped, in its
 * {@code MappableException}.)
 */
final class AsyncTimeouts {

    private static final String JERSEY = "org.glassfish.jersey.server.ServerRuntime$AsyncResponder";
    private static final String QUARKUS = "org.jboss.resteasy.reactive.server.jaxrs.AsyncResponseImpl";

    private AsyncTimeouts() {
    }

    static boolean isRuntimeTimeout(Throwable exception) {
        Throwable unavailable = exception;
        for (int depth = 0; depth < 3 && unavailable != null && !(unavailable instanceof ServiceUnavailableException);
                depth++) {
            unavailable = unavailable.getCause();
        }
        if (!(unavailable instanceof ServiceUnavailableException)) {
            return false;
        }
        StackTraceElement[] trace = unavailable.getStackTrace();
        if (trace.length == 0) {
            return false;
        }
        String origin = trace[0].getClassName();
        return origin.startsWith(JERSEY) || origin.equals(QUARKUS);
    }
}
