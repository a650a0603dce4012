-- The H2 statements of every SQL store, by name: ":name" is a bound parameter, {table}
-- the configured table (quoted).

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
  "key" = cast(:key as varchar)
  and "tenant_id" = cast(:tenant_id as varchar)
  and "caller" = cast(:caller as varbinary)
  and "method" = cast(:method as varchar)
  and "path" = cast(:path as varchar)
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
  "key" = cast(:key as varchar)
  and "tenant_id" = cast(:tenant_id as varchar)
  and "caller" = cast(:caller as varbinary)
  and "method" = cast(:method as varchar)
  and "path" = cast(:path as varchar)
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
  "key" = cast(:key as varchar)
  and "tenant_id" = cast(:tenant_id as varchar)
  and "caller" = cast(:caller as varbinary)
  and "method" = cast(:method as varchar)
  and "path" = cast(:path as varchar)
  and "owner_token" = cast(:owner_token as varchar)
  and "state" = 'IN_FLIGHT'
);

-- name: release
delete from {table}
where (
  "key" = cast(:key as varchar)
  and "tenant_id" = cast(:tenant_id as varchar)
  and "caller" = cast(:caller as varbinary)
  and "method" = cast(:method as varchar)
  and "path" = cast(:path as varchar)
  and "owner_token" = cast(:owner_token as varchar)
  and "state" = 'IN_FLIGHT'
);

-- name: renew
update {table}
set
  "locked_until" = :locked_until,
  "expires_at" = greatest("expires_at", cast(:locked_until as timestamp with time zone))
where (
  "key" = cast(:key as varchar)
  and "tenant_id" = cast(:tenant_id as varchar)
  and "caller" = cast(:caller as varbinary)
  and "method" = cast(:method as varchar)
  and "path" = cast(:path as varchar)
  and "owner_token" = cast(:owner_token as varchar)
  and "state" = 'IN_FLIGHT'
);

-- name: purge
delete from {table}
where (
  "key",
  "tenant_id",
  "caller",
  "method",
  "path"
) in (
  select
    "key",
    "tenant_id",
    "caller",
    "method",
    "path"
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
);

-- name: columnsProbe
select *
from {table}
where false;

-- name: columnsRowProbe
select {table}.*
from (
  select 1 "one"
) "probe"
  left outer join {table}
    on false;

-- name: upsert
merge into {table}
using (
  select
    cast(:key as varchar) "key",
    cast(:tenant_id as varchar) "tenant_id",
    cast(:caller as varbinary) "caller",
    cast(:method as varchar) "method",
    cast(:path as varchar) "path",
    cast(:request_hash as varchar) "request_hash",
    cast(:state as varchar) "state",
    cast(:owner_token as varchar) "owner_token",
    cast(:locked_until as timestamp with time zone) "locked_until",
    cast(:response_status as smallint) "response_status",
    cast(:response_content_type as varchar) "response_content_type",
    cast(:response_headers as varchar) "response_headers",
    cast(:response_body as blob) "response_body",
    cast(:format_version as smallint) "format_version",
    cast(:expires_at as timestamp with time zone) "expires_at",
    cast(:created_at as timestamp with time zone) "created_at"
) "source"
on (
  {table}."key" = "source"."key"
  and {table}."tenant_id" = "source"."tenant_id"
  and {table}."caller" = "source"."caller"
  and {table}."method" = "source"."method"
  and {table}."path" = "source"."path"
)
when matched and (
  (
    {table}."state" = 'IN_FLIGHT'
    and {table}."locked_until" <= cast(:now as timestamp with time zone)
  )
  or (
    {table}."state" = 'COMPLETED'
    and {table}."expires_at" <= cast(:now as timestamp with time zone)
  )
) then update set
  "request_hash" = "source"."request_hash",
  "state" = "source"."state",
  "owner_token" = "source"."owner_token",
  "locked_until" = "source"."locked_until",
  "response_status" = "source"."response_status",
  "response_content_type" = "source"."response_content_type",
  "response_headers" = "source"."response_headers",
  "response_body" = "source"."response_body",
  "format_version" = "source"."format_version",
  "expires_at" = "source"."expires_at",
  "created_at" = "source"."created_at"
when not matched then insert (
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
values (
  "source"."key",
  "source"."tenant_id",
  "source"."caller",
  "source"."method",
  "source"."path",
  "source"."request_hash",
  "source"."state",
  "source"."owner_token",
  "source"."locked_until",
  "source"."response_status",
  "source"."response_content_type",
  "source"."response_headers",
  "source"."response_body",
  "source"."format_version",
  "source"."expires_at",
  "source"."created_at"
);

-- name: saveAndSetLockWait
SET @idempotency_lock_timeout = LOCK_TIMEOUT();
SET LOCK_TIMEOUT {wait};

-- name: setLockWait
SET LOCK_TIMEOUT {wait};

-- name: restoreLockWait
SET LOCK_TIMEOUT @idempotency_lock_timeout;
