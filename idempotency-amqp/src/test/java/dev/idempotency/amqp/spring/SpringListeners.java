package dev.idempotency.amqp.spring;

import dev.idempotency.amqp.RabbitQueue;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.EnableRabbit;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

/**
 * A Spring application with one {@code @RabbitListener} on a test queue, its container factory advised
 * by the {@link IdempotentListenerAdvice} under test. An outer recording advice notes what became of each
 * delivery: returned (acknowledged), requeued, rejected, or failed in the listener.
 */
final class SpringListeners implements AutoCloseable {

    enum Fate { DONE, LATER, REFUSED, FAILED }

    record Settled(String body, boolean redelivered, Fate fate) {
    }

    /** The listener's work. */
    @FunctionalInterface
    interface Work {
        void handle(Message message) throws Exception;
    }

    final List<Settled> settled = new CopyOnWriteArrayList<>();
    final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private final AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();

    SpringListeners(RabbitQueue queue, IdempotentListenerAdvice advice, int consumers, int prefetch, Work work) {
        MethodInterceptor recorder = invocation -> {
            Message message = (Message) invocation.getArguments()[1];
            String body = new String(message.getBody());
            boolean redelivered = Boolean.TRUE.equals(message.getMessageProperties().getRedelivered());
            try {
                Object result = invocation.proceed();
                settled.add(new Settled(body, redelivered, Fate.DONE));
                return result;
            } catch (Throwable failed) {
                Throwable why = failed.getCause();
                Fate fate = why instanceof ImmediateRequeueAmqpException ? Fate.LATER
                        : why instanceof AmqpRejectAndDontRequeueException ? Fate.REFUSED : Fate.FAILED;
                settled.add(new Settled(body, redelivered, fate));
                throw failed;
            }
        };
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test",
                Map.of("test.queue", queue.name, "test.consumers", consumers, "test.prefetch", prefetch)));
        context.registerBean("work", Work.class, () -> work);
        context.registerBean("adviceChain", MethodInterceptor[].class, () -> new MethodInterceptor[] {recorder, advice});
        context.register(App.class);
        context.refresh();
    }

    void ran(Message message) {
        runs.computeIfAbsent(new String(message.getBody()), b -> new AtomicInteger()).incrementAndGet();
    }

    long count(Fate fate) {
        return settled.stream().filter(s -> s.fate() == fate).count();
    }

    int totalRuns() {
        return runs.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    @Override
    public void close() {
        context.close();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableRabbit
    static class App {

        @Bean
        CachingConnectionFactory connectionFactory() {
            return new CachingConnectionFactory(RabbitQueue.factory());
        }

        @Bean
        SimpleRabbitListenerContainerFactory rabbitListenerContainerFactory(CachingConnectionFactory connections,
                MethodInterceptor[] adviceChain, org.springframework.core.env.Environment environment) {
            SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
            factory.setConnectionFactory(connections);
            factory.setAdviceChain(adviceChain);
            factory.setConcurrentConsumers(environment.getRequiredProperty("test.consumers", Integer.class));
            factory.setPrefetchCount(environment.getRequiredProperty("test.prefetch", Integer.class));
            return factory;
        }

        @Bean
        Listener listener(Work work) {
            return new Listener(work);
        }
    }

    static class Listener {

        private final Work work;

        Listener(Work work) {
            this.work = work;
        }

        @RabbitListener(queues = "${test.queue}")
        void on(Message message) throws Exception {
            work.handle(message);
        }
    }
}
