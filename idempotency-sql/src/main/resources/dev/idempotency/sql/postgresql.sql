-- The PostgreSQL statements of every SQL store, by name: ":name" is a bound parameter, {table} the
-- configured table (quoted); {won} and {lost} take a variant's extra columns (SqlCatalog).

-- name: find
select
  "request_hash",
  "state",
  "owner_token",
  "locked_until",
  "response_status",
  "response_content_type",
  "response_headers",
  "response_body",
  "format_version",
  "expires_at"
from {table}
where (
  "key" = :key
  and "tenant_id" = :tenant_id
  and "caller" = :caller
  and "method" = :method
  and "path" = :path
  and (
    "expires_at" > cast(:now as timestamp with time zone)
    or "locked_until" > cast(:now as timestamp with time zone)
  )
);

-- name: readBack
select
  "request_hash",
  "state",
  "owner_token",
  "locked_until",
  "response_status",
  "response_content_type",
  "response_headers",
  "response_body",
  "format_version",
  "expires_at"
from {table}
where (
  "key" = :key
  and "tenant_id" = :tenant_id
  and "caller" = :caller
  and "method" = :method
  and "path" = :path
);

-- name: complete
update {table}
set
  "state" = 'COMPLETED',
  "locked_until" = null,
  "response_status" = :response_status,
  "response_content_type" = :response_content_type,
  "response_headers" = :response_headers,
  "response_body" = :response_body,
  "format_version" = :format_version
where (
  "key" = :key
  and "tenant_id" = :tenant_id
  and "caller" = :caller
  and "method" = :method
  and "path" = :path
  and "owner_token" = :owner_token
  and "state" = 'IN_FLIGHT'
);

-- name: release
delete from {table}
where (
  "key" = :key
  and "tenant_id" = :tenant_id
  and "caller" = :caller
  and "method" = :method
  and "path" = :path
  and "owner_token" = :owner_token
  and "state" = 'IN_FLIGHT'
);

-- name: renew
update {table}
set
  "locked_until" = cast(:locked_until as timestamp with time zone),
  "expires_at" = greatest("expires_at", cast(:locked_until as timestamp with time zone))
where (
  "key" = :key
  and "tenant_id" = :tenant_id
  and "caller" = :caller
  and "method" = :method
  and "path" = :path
  and "owner_token" = :owner_token
  and "state" = 'IN_FLIGHT'
);

-- name: purge
delete from {table}
where ("ctid" = ANY(ARRAY(select "ctid"
from {table}
where (
  "expires_at" <= cast(:now as timestamp with time zone)
  and (
    "state" = 'COMPLETED'
    or "locked_until" <= cast(:now as timestamp with time zone)
  )
)
order by "expires_at"
fetch next :limit rows only
for update skip locked)));

-- name: columnsProbe
select *
from {table}
where false;

-- name: columnsRowProbe
select {table}.*
from (
  select 1 as "one"
) as "probe"
  left outer join {table}
    on false;

-- name: insertCompleted
insert into {table} (
  "key",
  "tenant_id",
  "caller",
  "method",
  "path",
  "request_hash",
  "state",
  "owner_token",
  "locked_until",
  "response_status",
  "response_content_type",
  "response_headers",
  "response_body",
  "format_version",
  "expires_at",
  "created_at"
)
select
  :key as "key",
  :tenant_id as "tenant_id",
  :caller as "caller",
  :method as "method",
  :path as "path",
  :request_hash as "request_hash",
  :state as "state",
  :owner_token as "owner_token",
  cast(:locked_until as timestamp with time zone) as "locked_until",
  :response_status as "response_status",
  :response_content_type as "response_content_type",
  :response_headers as "response_headers",
  :response_body as "response_body",
  :format_version as "format_version",
  cast(:expires_at as timestamp with time zone) as "expires_at",
  cast(:created_at as timestamp with time zone) as "created_at"
where not exists (
  select 1 as "one"
  from {table}
  where (
    "key" = :key
    and "tenant_id" = :tenant_id
    and "caller" = :caller
    and "method" = :method
    and "path" = :path
    and (
      (
        "state" = 'IN_FLIGHT'
        and "locked_until" > cast(:now as timestamp with time zone)
      )
      or (
        "state" = 'COMPLETED'
        and "expires_at" > cast(:now as timestamp with time zone)
      )
    )
  )
)
on conflict (
  "key",
  "tenant_id",
  "caller",
  "method",
  "path"
)
do update
set
  "request_hash" = excluded."request_hash",
  "state" = excluded."state",
  "owner_token" = excluded."owner_token",
  "locked_until" = excluded."locked_until",
  "response_status" = excluded."response_status",
  "response_content_type" = excluded."response_content_type",
  "response_headers" = excluded."response_headers",
  "response_body" = excluded."response_body",
  "format_version" = excluded."format_version",
  "expires_at" = excluded."expires_at",
  "created_at" = excluded."created_at"
where (
  (
    {table}."state" = 'IN_FLIGHT'
    and {table}."locked_until" <= cast(:now as timestamp with time zone)
  )
  or (
    {table}."state" = 'COMPLETED'
    and {table}."expires_at" <= cast(:now as timestamp with time zone)
  )
);

-- name: reserveFresh
with
  "ins" as (
    insert into {table} (
      "key",
      "tenant_id",
      "caller",
      "method",
      "path",
      "request_hash",
      "state",
      "owner_token",
      "locked_until",
      "response_status",
      "response_content_type",
      "response_headers",
      "response_body",
      "format_version",
      "expires_at",
      "created_at"
    )
    select
      :key as "key",
      :tenant_id as "tenant_id",
      :caller as "caller",
      :method as "method",
      :path as "path",
      :request_hash as "request_hash",
      :state as "state",
      :owner_token as "owner_token",
      cast(:locked_until as timestamp with time zone) as "locked_until",
      :response_status as "response_status",
      :response_content_type as "response_content_type",
      :response_headers as "response_headers",
      :response_body as "response_body",
      :format_version as "format_version",
      cast(:expires_at as timestamp with time zone) as "expires_at",
      cast(:created_at as timestamp with time zone) as "created_at"
    on conflict (
      "key",
      "tenant_id",
      "caller",
      "method",
      "path"
    )
    do nothing
    returning 1
  )
(
  select
    true as "won",
    cast(null as varchar) as "request_hash",
    cast(null as varchar) as "state",
    cast(null as varchar) as "owner_token",
    cast(null as timestamp with time zone) as "locked_until",
    cast(null as smallint) as "response_status",
    cast(null as varchar) as "response_content_type",
    cast(null as varchar) as "response_headers",
    cast(null as bytea) as "response_body",
    cast(null as smallint) as "format_version",
    cast(null as timestamp with time zone) as "expires_at"{won}
  from "ins"
)
union all (
  select
    false as "won",
    "request_hash",
    "state",
    "owner_token",
    "locked_until",
    "response_status",
    "response_content_type",
    "response_headers",
    "response_body",
    "format_version",
    "expires_at"{lost}
  from {table}
  where (
    "key" = :key
    and "tenant_id" = :tenant_id
    and "caller" = :caller
    and "method" = :method
    and "path" = :path
    and not exists (
      select 1 as "one"
      from "ins"
    )
  )
);

-- name: reserve
with
  "cur" as (
    select
      "request_hash",
      "state",
      "owner_token",
      "locked_until",
      "response_status",
      "response_content_type",
      "response_headers",
      "response_body",
      "format_version",
      "expires_at"
    from {table}
    where (
      "key" = :key
      and "tenant_id" = :tenant_id
      and "caller" = :caller
      and "method" = :method
      and "path" = :path
    )
  ),
  "ins" as (
    insert into {table} (
      "key",
      "tenant_id",
      "caller",
      "method",
      "path",
      "request_hash",
      "state",
      "owner_token",
      "locked_until",
      "response_status",
      "response_content_type",
      "response_headers",
      "response_body",
      "format_version",
      "expires_at",
      "created_at"
    )
    select
      :key as "key",
      :tenant_id as "tenant_id",
      :caller as "caller",
      :method as "method",
      :path as "path",
      :request_hash as "request_hash",
      :state as "state",
      :owner_token as "owner_token",
      cast(:locked_until as timestamp with time zone) as "locked_until",
      :response_status as "response_status",
      :response_content_type as "response_content_type",
      :response_headers as "response_headers",
      :response_body as "response_body",
      :format_version as "format_version",
      cast(:expires_at as timestamp with time zone) as "expires_at",
      cast(:created_at as timestamp with time zone) as "created_at"
    where not exists (
      select 1 as "one"
      from "cur"
      where (
        (
          "cur"."state" = 'IN_FLIGHT'
          and "cur"."locked_until" > cast(:now as timestamp with time zone)
        )
        or (
          "cur"."state" = 'COMPLETED'
          and "cur"."expires_at" > cast(:now as timestamp with time zone)
        )
      )
    )
    on conflict (
      "key",
      "tenant_id",
      "caller",
      "method",
      "path"
    )
    do update
    set
      "request_hash" = excluded."request_hash",
      "state" = excluded."state",
      "owner_token" = excluded."owner_token",
      "locked_until" = excluded."locked_until",
      "response_status" = excluded."response_status",
      "response_content_type" = excluded."response_content_type",
      "response_headers" = excluded."response_headers",
      "response_body" = excluded."response_body",
      "format_version" = excluded."format_version",
      "expires_at" = excluded."expires_at",
      "created_at" = excluded."created_at"
    where (
      (
        {table}."state" = 'IN_FLIGHT'
        and {table}."locked_until" <= cast(:now as timestamp with time zone)
      )
      or (
        {table}."state" = 'COMPLETED'
        and {table}."expires_at" <= cast(:now as timestamp with time zone)
      )
    )
    returning
      {table}."request_hash",
      {table}."state",
      {table}."owner_token",
      {table}."locked_until",
      {table}."response_status",
      {table}."response_content_type",
      {table}."response_headers",
      {table}."response_body",
      {table}."format_version",
      {table}."expires_at"
  )
(
  select
    true as "won",
    "ins"."request_hash",
    "ins"."state",
    "ins"."owner_token",
    "ins"."locked_until",
    "ins"."response_status",
    "ins"."response_content_type",
    "ins"."response_headers",
    "ins"."response_body",
    "ins"."format_version",
    "ins"."expires_at"{won}
  from "ins"
)
union all (
  select
    false as "won",
    "cur"."request_hash",
    "cur"."state",
    "cur"."owner_token",
    "cur"."locked_until",
    "cur"."response_status",
    "cur"."response_content_type",
    "cur"."response_headers",
    "cur"."response_body",
    "cur"."format_version",
    "cur"."expires_at"{lost}
  from "cur"
  where (
    (
      "cur"."state" = 'IN_FLIGHT'
      and "cur"."locked_until" > cast(:now as timestamp with time zone)
    )
    or (
      "cur"."state" = 'COMPLETED'
      and "cur"."expires_at" > cast(:now as timestamp with time zone)
    )
  )
);

-- name: readCommitted
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

-- name: atomicSettings
SELECT set_config('idempotency.session_lock_timeout', current_setting('lock_timeout'), true), set_config('lock_timeout', :lock_timeout, true), set_config('idle_in_transaction_session_timeout', :idle_timeout, true){tenant};

-- name: atomicLockTimeout
SELECT set_config('lock_timeout', :lock_timeout, true);

-- name: restoreLockTimeout
SELECT set_config('lock_timeout', current_setting('idempotency.session_lock_timeout'), true);

-- name: restoreLockAndStatementTimeout
SELECT set_config('lock_timeout', current_setting('idempotency.session_lock_timeout'), true), set_config('statement_timeout', current_setting('idempotency.session_statement_timeout'), true);

-- name: localStatementTimeout
SELECT set_config('statement_timeout', CASE WHEN s = interval '0' OR s > interval '{millis}ms' THEN '{millis}ms' ELSE current_setting('statement_timeout') END, true) FROM (SELECT cast(current_setting('statement_timeout') as interval) AS s) AS session;

-- name: saveStatementTimeout
SELECT set_config('idempotency.session_statement_timeout', current_setting('statement_timeout'), true);

-- name: inFlightProbe
WITH held AS MATERIALIZED (
  SELECT pid, classid, objid FROM pg_locks
  WHERE locktype = 'advisory' AND objsubid = 2 AND granted
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND classid IN (1229212488, 1229212492, 1229210180))
SELECT EXISTS (SELECT FROM held WHERE classid = 1229210180 AND objid = CAST(:body_lock AS int4)::oid) AS same_body,
       EXISTS (SELECT FROM held h
               JOIN held l ON l.pid = h.pid AND l.classid = 1229212492 AND l.objid = CAST(:key_lock_low AS int4)::oid
               JOIN held b ON b.pid = h.pid AND b.classid = 1229210180
               WHERE h.classid = 1229212488 AND h.objid = CAST(:key_lock_high AS int4)::oid) AS key_held;

-- name: tableExists
select to_regclass(:quoted_table) is not null;

-- name: tableState
SELECT to_regclass(:quoted_table) IS NOT NULL AS present, EXISTS (SELECT FROM pg_attribute WHERE attrelid = to_regclass(:quoted_table) AND attname = 'caller' AND attnum > 0 AND NOT attisdropped) AS caller;

-- Instances that start together create the table one after the other ("idempotency_keys".hashCode()).
-- name: ddlLock
SELECT pg_advisory_xact_lock(1370371874);
