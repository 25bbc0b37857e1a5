-- Issue 12 item 4: full-text search over a record's content and the string values of its metadata.
-- Hand-written: the Prisma schema language has no expression indexes (and its diff leaves this one
-- alone). The expression must stay identical to SEARCH_DOCUMENT in src/store/filter-sql.ts, or the
-- planner cannot use the index. Both functions are IMMUTABLE with an explicit configuration.
-- (No semicolon in these comments: the PostgreSQL adapter splits the script at each one.)

-- Metadata may hold any valid JSON (W10), but a \u0000 escape or a lone surrogate escape cannot become
-- text, so json_to_tsvector would fail on it: such escapes are read as \u0020 (six characters for six,
-- the JSON stays valid), and only records that hold a \u escape pay for the regular expression.

-- CreateIndex
CREATE INDEX "Memory_search_idx" ON "Memory" USING GIN ((to_tsvector('english'::regconfig, content) || json_to_tsvector('english'::regconfig, CASE WHEN strpos(metadata::text, '\u') = 0 THEN metadata ELSE regexp_replace(metadata::text, '\\u(0000|d[89a-f][0-9a-f]{2})', '\\u0020', 'gi')::json END, '["string"]'::jsonb)));
