/**
 * The JSON canonicalizers behind {@link dev.idempotency.core.BodyCanonicalizer#sortedJson()} and
 * {@link dev.idempotency.core.BodyCanonicalizer#jcs()}. Not exported by the module: reach them
 * through those two methods.
 */
package dev.idempotency.core.canonical;
