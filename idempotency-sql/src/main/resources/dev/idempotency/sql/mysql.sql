-- MySQL: what it says otherwise than MariaDB (mariadb.sql): an upsert without RETURNING, read back after.

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
as excluded
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
    ) then excluded.`owner_token`
    else `owner_token`
  end,
  `request_hash` = case
    when `owner_token` = excluded.`owner_token` then excluded.`request_hash`
    else `request_hash`
  end,
  `state` = case
    when `owner_token` = excluded.`owner_token` then excluded.`state`
    else `state`
  end,
  `locked_until` = case
    when `owner_token` = excluded.`owner_token` then excluded.`locked_until`
    else `locked_until`
  end,
  `response_status` = case
    when `owner_token` = excluded.`owner_token` then excluded.`response_status`
    else `response_status`
  end,
  `response_content_type` = case
    when `owner_token` = excluded.`owner_token` then excluded.`response_content_type`
    else `response_content_type`
  end,
  `response_headers` = case
    when `owner_token` = excluded.`owner_token` then excluded.`response_headers`
    else `response_headers`
  end,
  `response_body` = case
    when `owner_token` = excluded.`owner_token` then excluded.`response_body`
    else `response_body`
  end,
  `format_version` = case
    when `owner_token` = excluded.`owner_token` then excluded.`format_version`
    else `format_version`
  end,
  `expires_at` = case
    when `owner_token` = excluded.`owner_token` then excluded.`expires_at`
    else `expires_at`
  end,
  `created_at` = case
    when `owner_token` = excluded.`owner_token` then excluded.`created_at`
    else `created_at`
  end;
