\set r random(1, 1000000000)
\set k :r
INSERT INTO idempotency_keys (key, tenant_id, method, path, request_hash, state, owner_token, locked_until, format_version, expires_at, created_at) VALUES ('d' || :k, 't', 'POST', '/orders', 'eeee', 'IN_FLIGHT', 'tok' || :k, now() + interval '30 s', 1, now() + interval '1 day', now());
UPDATE idempotency_keys SET state = 'COMPLETED', locked_until = NULL, response_status = 201, response_content_type = 'application/json', response_headers = '[["Location","/orders/1"]]', response_body = '\x7b7d'::bytea WHERE key = 'd' || :k AND tenant_id = 't' AND caller = ''::bytea AND method = 'POST' AND path = '/orders' AND owner_token = 'tok' || :k AND state = 'IN_FLIGHT';
