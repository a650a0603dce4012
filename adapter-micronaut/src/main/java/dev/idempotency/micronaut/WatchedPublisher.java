package dev.idempotency.micronaut;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * A response body publisher that passes its items on as they come and tells a {@link StreamEnd}
 * how it ended <em>before</em> passing the end on: the server finishes the response only once the
 * end has been dealt with, so a client never sees the response complete while its key is still
 * in flight. The end's work runs on {@code executor}, never on the thread that signalled it (an
 * event loop).
 */
final class WatchedPublisher<T> implements Publisher<T> {

    private final Publisher<T> source;
    private final StreamEnd end;
    private final Executor executor;
    private final AtomicBoolean ended = new AtomicBoolean();

    WatchedPublisher(Publisher<T> source, StreamEnd end, Executor executor) {
        this.source = source;
        this.end = end;
        this.executor = executor;
    }

    @Override
    public void subscribe(Subscriber<? super T> downstream) {
        source.subscribe(new Watcher(downstream));
    }

    /** True for the first end seen, whichever it is. */
    private boolean firstEnd() {
        return ended.compareAndSet(false, true);
    }

    private CompletableFuture<Void> onExecutor(Runnable work) {
        try {
            return CompletableFuture.runAsync(work, executor);
        } catch (RuntimeException rejected) { // the executor is shutting down
            return CompletableFuture.failedFuture(rejected);
        }
    }

    private final class Watcher implements Subscriber<T> {

        private final Subscriber<? super T> downstream;

        Watcher(Subscriber<? super T> downstream) {
            this.downstream = downstream;
        }

        @Override
        public void onSubscribe(Subscription subscription) {
            downstream.onSubscribe(new Subscription() {
                @Override
                public void request(long n) {
                    subscription.request(n);
                }

                @Override
                public void cancel() {
                    subscription.cancel();
                    if (firstEnd()) {
                        onExecutor(end::abandoned);
                    }
                }
            });
        }

        @Override
        public void onNext(T item) {
            downstream.onNext(item);
        }

        @Override
        public void onError(Throwable failure) {
            if (!firstEnd()) {
                downstream.onError(failure);
                return;
            }
            onExecutor(() -> end.failed(failure)).whenComplete((done, ignored) -> downstream.onError(failure));
        }

        @Override
        public void onComplete() {
            if (!firstEnd()) {
                downstream.onComplete();
                return;
            }
            onExecutor(end::sent).whenComplete((done, refused) -> {
                if (refused == null) {
                    downstream.onComplete();
                } else {
                    downstream.onError(refused instanceof CompletionException && refused.getCause() != null
                            ? refused.getCause() : refused);
                }
            });
        }
    }
}
