-- Issue 12 item 4: full-text search over a record's content and the string values of its metadata.
-- Hand-written: Prisma's schema language has no expression indexes (and its diff leaves this one
-- alone). The expression must stay identical to SEARCH_DOCUMENT in src/store/filter-sql.ts, or the
-- planner cannot use the index; both functions are IMMUTABLE with an explicit configuration.

-- CreateIndex
CREATE INDEX "Memory_search_idx" ON "Memory" USING GIN ((to_tsvector('english'::regconfig, content) || json_to_tsvector('english'::regconfig, metadata, '["string"]'::jsonb)));
