package dev.idempotency.examples.webflux;

import dev.idempotency.examples.NewOrder;
import dev.idempotency.examples.NewPayment;
import dev.idempotency.examples.Order;
import dev.idempotency.examples.Payment;
import dev.idempotency.examples.ShopRepository;
import java.util.List;
import java.util.concurrent.Callable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The shared JDBC repository (embedded H2, MariaDB, a JDBC URL the R2DBC side does not take), its
 * blocking calls on Reactor's bounded elastic scheduler, never on an event loop.
 */
final class JdbcShop implements Shop {

    private final ShopRepository repository;

    JdbcShop(ShopRepository repository) {
        this.repository = repository;
    }

    @Override
    public Mono<Order> createOrder(String tenant, NewOrder order) {
        return blocking(() -> repository.createOrder(tenant, order));
    }

    @Override
    public Mono<List<Order>> orders(String tenant) {
        return blocking(() -> repository.orders(tenant));
    }

    @Override
    public Mono<Order> order(String tenant, long id) {
        return blocking(() -> repository.order(tenant, id).orElse(null));
    }

    @Override
    public Mono<Payment> createPayment(String tenant, NewPayment payment) {
        return blocking(() -> repository.createPayment(tenant, payment));
    }

    @Override
    public Mono<List<Payment>> payments(String tenant) {
        return blocking(() -> repository.payments(tenant));
    }

    @Override
    public String description() {
        return "JDBC";
    }

    @Override
    public void close() {
        // the pool is ExampleApp's
    }

    private static <T> Mono<T> blocking(Callable<T> call) {
        return Mono.fromCallable(call).subscribeOn(Schedulers.boundedElastic());
    }
}
