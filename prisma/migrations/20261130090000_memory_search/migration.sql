-- Issue 12 item 4: full-text search over a record's content and the string values of its metadata.
-- Hand-written: the Prisma schema language has no expression indexes (and its diff leaves this one
-- alone). The expression must stay identical to SEARCH_DOCUMENT in src/store/filter-sql.ts, or the
-- planner cannot use the index. Both functions are IMMUTABLE with an explicit configuration.
-- (No semicolon in these comments: the PostgreSQL adapter splits the script at each one.)

-- CreateIndex
CREATE INDEX "Memory_search_idx" ON "Memory" USING GIN ((to_tsvector('english'::regconfig, content) || json_to_tsvector('english'::regconfig, metadata, '["string"]'::jsonb)));
