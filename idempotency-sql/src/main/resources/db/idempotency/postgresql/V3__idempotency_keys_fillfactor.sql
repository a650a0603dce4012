-- Leaves room on each page of idempotency_keys (PostgreSQL) for the completing UPDATE.
-- Optional, and separate from V1 so that V1's Flyway checksum stays what it was. It rewrites
-- nothing (pages written from now on keep the room; existing pages keep their rows) and takes
-- only a brief SHARE UPDATE EXCLUSIVE lock. May run again. Version 3 because the optional
-- row-level-security script in db/idempotency/postgresql-rls is version 2.
--
-- Why: completing a reservation stores the response in its row. That UPDATE changes no indexed
-- column (expires_at is set once, by the reservation), so PostgreSQL can make it a heap-only-tuple
-- (HOT) update, which writes no index entries, but only if the grown row fits on the row's own
-- page. At fillfactor 100 the page of a reservation fills with other reservations while its
-- handler runs; with eight handlers overlapping, about half of the completions then moved to
-- another page and wrote both indexes. At 70, new rows stop at 70 % of a page and the
-- completions grow into the rest. Lower it for larger stored responses, raise it (or leave this
-- file out) when few requests overlap and disk matters more: see idempotency-jdbc's README.

ALTER TABLE idempotency_keys SET (fillfactor = 70);
