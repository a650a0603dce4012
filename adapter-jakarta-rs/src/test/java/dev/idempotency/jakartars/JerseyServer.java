package dev.idempotency.jakartars;

import dev.idempotency.testkit.HttpConformanceTest;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpContainer;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.server.ContainerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;

/**
 * A Jersey application on Grizzly, on a free port of 127.0.0.1.
 *
 * <p>Jersey's Grizzly container answers a request path that is no URI (a malformed escape such as
 * {@code /orders/%zz}) with a 500 before any filter runs; a handler in front answers it with 400,
 * as the JDK's server and Jetty do themselves.
 */
final class JerseyServer implements HttpConformanceTest.RunningServer {

    private final HttpServer server;
    private final URI base;

    private JerseyServer(HttpServer server) {
        this.server = server;
        this.base = URI.create("http://127.0.0.1:" + server.getListeners().iterator().next().getPort());
    }

    static JerseyServer start(ResourceConfig app) throws IOException {
        app.property(ServerProperties.WADL_FEATURE_DISABLE, true);
        GrizzlyHttpContainer container = ContainerFactory.createContainer(GrizzlyHttpContainer.class, app);
        HttpServer server = GrizzlyHttpServerFactory.createHttpServer(URI.create("http://127.0.0.1:0/"), container,
                false, null, false);
        server.getServerConfiguration().removeHttpHandler(container);
        server.getServerConfiguration().addHttpHandler(new MalformedUris(container));
        server.start();
        return new JerseyServer(server);
    }

    @Override
    public URI baseUri() {
        return base;
    }

    @Override
    public void close() {
        server.shutdownNow();
    }

    /** Answers 400 to a request URI that does not parse; hands every other request to Jersey. */
    private static final class MalformedUris extends HttpHandler {
        private final GrizzlyHttpContainer jersey;

        MalformedUris(GrizzlyHttpContainer jersey) {
            this.jersey = jersey;
        }

        @Override
        public void service(Request request, Response response) throws Exception {
            try {
                new URI(request.getRequestURI());
            } catch (URISyntaxException malformed) {
                response.sendError(400);
                return;
            }
            jersey.service(request, response);
        }

        @Override
        public void start() {
            jersey.start();
        }

        @Override
        public void destroy() {
            jersey.destroy();
        }
    }
}
