package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StorageUnavailableException.Reason;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Which failures are outages, and that their message carries none of the failure's text. */
class RedisFailuresTest {

    private static final String SECRET = "redis://user:s3cret@10.1.2.3:6379";

    @ParameterizedTest
    @ValueSource(strings = {"CLUSTERDOWN The cluster is down", "LOADING Redis is loading the dataset in memory",
            "READONLY You can't write against a read only replica.", "MASTERDOWN Link with MASTER is down"})
    void serverStatesThatCannotServeAreUnreachable(String reply) {
        RuntimeException translated = RedisFailures.translate(
                new CompletionException(new RedisCommandExecutionException(reply + " " + SECRET)));

        assertThat(translated).isInstanceOfSatisfying(StorageUnavailableException.class, e -> {
            assertThat(e.reason()).isEqualTo(Reason.UNREACHABLE);
            assertThat(e.getMessage()).contains(reply.substring(0, reply.indexOf(' '))).doesNotContain("s3cret");
        });
    }

    @Test
    void connectionFailuresAreUnreachable() {
        assertThat(reason(new RedisConnectionException("Unable to connect to " + SECRET))).isEqualTo(Reason.UNREACHABLE);
        assertThat(reason(new RedisException("wrapped", new ConnectException("refused")))).isEqualTo(Reason.UNREACHABLE);
        assertThat(reason(new RedisException("Connection closed"))).isEqualTo(Reason.UNREACHABLE);
        // what a pending command gets when its server is killed (RedisFailoverTest)
        assertThat(reason(new CompletionException(new SocketException("Connection reset")))).isEqualTo(Reason.UNREACHABLE);
        assertThat(reason(new IOException("Connection reset by peer"))).isEqualTo(Reason.UNREACHABLE);
        assertThat(RedisFailures.translate(new RedisConnectionException("Unable to connect to " + SECRET)).getMessage())
                .doesNotContain("s3cret");
    }

    @Test
    void timeoutsAreBusy() {
        assertThat(reason(new RedisCommandTimeoutException("Command timed out after 2 second(s)"))).isEqualTo(Reason.BUSY);
        assertThat(reason(new TimeoutException())).isEqualTo(Reason.BUSY);
        assertThat(reason(new RedisCommandExecutionException("BUSY Redis is busy running a script."))).isEqualTo(Reason.BUSY);
    }

    @Test
    void otherFailuresPassThroughUnwrapped() {
        RedisCommandExecutionException wrongType = new RedisCommandExecutionException(
                "WRONGTYPE Operation against a key holding the wrong kind of value");
        IllegalStateException malformed = new IllegalStateException("Malformed record");

        assertThat(RedisFailures.translate(new CompletionException(wrongType))).isSameAs(wrongType);
        assertThat(RedisFailures.translate(malformed)).isSameAs(malformed);
    }

    private static Reason reason(Throwable failure) {
        RuntimeException translated = RedisFailures.translate(failure);
        assertThat(translated).isInstanceOf(StorageUnavailableException.class);
        return ((StorageUnavailableException) translated).reason();
    }
}
