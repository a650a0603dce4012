package dev.idempotency.spring.internal;

import dev.idempotency.core.adapter.RequestPaths;
import java.util.List;
import org.springframework.util.AntPathMatcher;

/**
 * The Ant-style patterns of {@code idempotency.paths}, matched against the path a request's record
 * is filed under, so that coverage and the record come from the same string; a path that names no
 * record is matched as it is (and, when covered, handed to the engine, which refuses it under a
 * key). Shared by this project's Spring adapters; not an API.
 */
public final class CoveredPaths {

    private static final AntPathMatcher ANT = new AntPathMatcher();

    private final List<String> patterns;

    public CoveredPaths(List<String> patterns) {
        this.patterns = List.copyOf(patterns);
    }

    /** Whether one of the patterns matches {@code path}. */
    public boolean covers(DispatchedPath path) {
        String matched = RequestPaths.normalize(path.path()).orElse(path.path());
        for (String pattern : patterns) {
            if (ANT.match(pattern, matched)) {
                return true;
            }
        }
        return false;
    }
}
