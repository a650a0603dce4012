-- The MariaDB (and MySQL, but for mysql.sql) statements of every SQL store, by name: ":name" is a bound parameter, {table}
-- the configured table (quoted).

-- name: find
select
  `request_hash`,
  `state`,
  `owner_token`,
  `locked_until`,
  `response_status`,
  `response_content_type`,
  `response_headers`,
  `response_body`,
  `format_version`,
  `expires_at`
from {table}
where (
  `key` = :key
  and `tenant_id` = :tenant_id
  and `caller` = :caller
  and `method` = :method
  and `path` = :path
  and (
    `expires_at` > :now
    or `locked_until` > :now
  )
);

-- name: readBack
select
  `request_hash`,
  `state`,
  `owner_token`,
  `locked_until`,
  `response_status`,
  `response_content_type`,
  `response_headers`,
  `response_body`,
  `format_version`,
  `expires_at`
from {table}
where (
  `key` = :key
  and `tenant_id` = :tenant_id
  and `caller` = :caller
  and `method` = :method
  and `path` = :path
);

-- name: complete
update {table}
set
  `state` = 'COMPLETED',
  `locked_until` = null,
  `response_status` = :response_status,
  `response_content_type` = :response_content_type,
  `response_headers` = :response_headers,
  `response_body` = :response_body,
  `format_version` = :format_version
where (
  `key` = :key
  and `tenant_id` = :tenant_id
  and `caller` = :caller
  and `method` = :method
  and `path` = :path
  and `owner_token` = :owner_token
  and `state` = 'IN_FLIGHT'
);

-- name: release
delete from {table}
where (
  `key` = :key
  and `tenant_id` = :tenant_id
  and `caller` = :caller
  and `method` = :method
  and `path` = :path
  and `owner_token` = :owner_token
  and `state` = 'IN_FLIGHT'
);

-- name: renew
update {table}
set
  `locked_until` = :locked_until,
  `expires_at` = greatest(`expires_at`, :locked_until)
where (
  `key` = :key
  and `tenant_id` = :tenant_id
  and `caller` = :caller
  and `method` = :method
  and `path` = :path
  and `owner_token` = :owner_token
  and `state` = 'IN_FLIGHT'
);

-- name: purge
delete from {table}
where (
  `expires_at` <= :now
  and (
    `state` = 'COMPLETED'
    or `locked_until` <= :now
  )
)
order by `expires_at`
limit :limit;

-- name: columnsProbe
select *
from {table}
where false;

-- name: columnsRowProbe
select {table}.*
from (
  select 1 as `one`
) as `probe`
  left outer join {table}
    on false;

-- name: upsert
insert into {table} (
  `key`,
  `tenant_id`,
  `caller`,
  `method`,
  `path`,
  `request_hash`,
  `state`,
  `owner_token`,
  `locked_until`,
  `response_status`,
  `response_content_type`,
  `response_headers`,
  `response_body`,
  `format_version`,
  `expires_at`,
  `created_at`
)
values (
  :key,
  :tenant_id,
  :caller,
  :method,
  :path,
  :request_hash,
  :state,
  :owner_token,
  :locked_until,
  :response_status,
  :response_content_type,
  :response_headers,
  :response_body,
  :format_version,
  :expires_at,
  :created_at
)
on duplicate key update
  `owner_token` = case
    when (
      (
        `state` = 'IN_FLIGHT'
        and `locked_until` <= :now
      )
      or (
        `state` = 'COMPLETED'
        and `expires_at` <= :now
      )
    ) then values(`owner_token`)
    else `owner_token`
  end,
  `request_hash` = case
    when `owner_token` = values(`owner_token`) then values(`request_hash`)
    else `request_hash`
  end,
  `state` = case
    when `owner_token` = values(`owner_token`) then values(`state`)
    else `state`
  end,
  `locked_until` = case
    when `owner_token` = values(`owner_token`) then values(`locked_until`)
    else `locked_until`
  end,
  `response_status` = case
    when `owner_token` = values(`owner_token`) then values(`response_status`)
    else `response_status`
  end,
  `response_content_type` = case
    when `owner_token` = values(`owner_token`) then values(`response_content_type`)
    else `response_content_type`
  end,
  `response_headers` = case
    when `owner_token` = values(`owner_token`) then values(`response_headers`)
    else `response_headers`
  end,
  `response_body` = case
    when `owner_token` = values(`owner_token`) then values(`response_body`)
    else `response_body`
  end,
  `format_version` = case
    when `owner_token` = values(`owner_token`) then values(`format_version`)
    else `format_version`
  end,
  `expires_at` = case
    when `owner_token` = values(`owner_token`) then values(`expires_at`)
    else `expires_at`
  end,
  `created_at` = case
    when `owner_token` = values(`owner_token`) then values(`created_at`)
    else `created_at`
  end
returning
  `request_hash`,
  `state`,
  `owner_token`,
  `locked_until`,
  `response_status`,
  `response_content_type`,
  `response_headers`,
  `response_body`,
  `format_version`,
  `expires_at`;

-- The purge lock: a named lock of the session, named after the session's database and the table
-- (hashed: MySQL allows 64 characters), taken without waiting.
-- name: takePurgeLock
SELECT GET_LOCK(CONCAT('idempotency-purge:', SHA1(CONCAT(IFNULL(DATABASE(), ''), '.', :table_label))), 0) AS locked;

-- name: releasePurgeLock
SELECT RELEASE_LOCK(CONCAT('idempotency-purge:', SHA1(CONCAT(IFNULL(DATABASE(), ''), '.', :table_label)))) AS locked;

-- name: ddlLock
SELECT GET_LOCK('dev.idempotency.ddl', 60);

-- name: ddlUnlock
SELECT RELEASE_LOCK('dev.idempotency.ddl');

-- name: readCommittedNext
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

-- name: readUncommittedNext
SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED;

-- name: saveAndSetLockWait
SET @idempotency_lock_wait_timeout = @@session.innodb_lock_wait_timeout, SESSION innodb_lock_wait_timeout = {wait};

-- name: setLockWait
SET SESSION innodb_lock_wait_timeout = {wait};

-- name: restoreLockWait
SET SESSION innodb_lock_wait_timeout = @idempotency_lock_wait_timeout;
