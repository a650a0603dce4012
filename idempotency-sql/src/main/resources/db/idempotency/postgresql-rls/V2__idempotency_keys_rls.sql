-- OPTIONAL row-level security for the idempotency table (PostgreSQL 12+). Apply after
-- V1__idempotency_keys.sql and build the store with JdbcStore.builder(dataSource)
-- .rowLevelSecurity(true): it then runs every statement in a transaction that first calls
-- set_config('idempotency.tenant_id', <tenant of the record key>, true).
--
-- A row is visible and writable only while that setting equals its tenant_id; with the setting
-- unset nothing is visible (fail closed). FORCE makes the policy bind the table's owner too.
-- Superusers and roles with BYPASSRLS are never bound: connect the application as a plain role,
-- for example
--   CREATE ROLE app LOGIN;
--   GRANT SELECT, INSERT, UPDATE, DELETE ON idempotency_keys TO app;
-- and run purging (PurgeScheduler) through a store on a role that bypasses the policy, since
-- purging crosses tenants.

ALTER TABLE idempotency_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE idempotency_keys FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS idempotency_keys_tenant_isolation ON idempotency_keys;
CREATE POLICY idempotency_keys_tenant_isolation ON idempotency_keys
    USING (tenant_id = current_setting('idempotency.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('idempotency.tenant_id', true));
