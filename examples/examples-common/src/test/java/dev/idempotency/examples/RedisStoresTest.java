package dev.idempotency.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The cluster client of the examples follows the topology as idempotency-redis's README recommends. */
class RedisStoresTest {

    @Test
    void theClusterClientRefreshesItsTopologyAdaptivelyAndEverySecond() {
        RedisClusterClient client = RedisStores.clusterClient(List.of(RedisURI.create("redis://127.0.0.1:7000")));
        try {
            ClusterTopologyRefreshOptions refresh = ((ClusterClientOptions) client.getOptions()).getTopologyRefreshOptions();

            assertThat(refresh.getAdaptiveRefreshTriggers()).containsExactlyInAnyOrder(RefreshTrigger.values());
            assertThat(refresh.getAdaptiveRefreshTimeout()).isEqualTo(Duration.ofMillis(500));
            assertThat(refresh.isPeriodicRefreshEnabled()).isTrue();
            assertThat(refresh.getRefreshPeriod()).isEqualTo(Duration.ofSeconds(1));
        } finally {
            client.shutdown();
        }
    }
}
