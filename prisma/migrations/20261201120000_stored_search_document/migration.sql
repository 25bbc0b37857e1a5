-- S7, B11: the search document is stored, computed once when a row is written, so that neither a
-- GIN recheck (phrases always need one) nor a walk of the agent's records newest first rebuilds a
-- document per candidate. filter-sql.ts reads "searchDocument", for the list and the live search
-- check (L1) alike.
--
-- What a record is searched by: its content and the string values of its metadata (keys, numbers
-- and booleans are not text), English stemming and stop words, through IMMUTABLE functions with an
-- explicit configuration. Metadata may hold any valid JSON (W10), but a \u0000 escape or a lone
-- surrogate escape cannot become text, so json_to_tsvector would fail on it: such escapes are read
-- as \u0020 (six characters for six, the JSON stays valid), and only records that hold a \u escape
-- pay for the regular expression.
--
-- Hand-written: the Prisma schema language has no generated columns. schema.prisma declares the
-- column as Unsupported("tsvector") with its GIN index, and Prisma's diff does not compare the
-- generation expression (docs/development.md).
--
-- STORAGE MAIN keeps the document in the row (the content moves out of line first): the planner
-- prices @@ as a cheap operator whatever it has to detoast, and with the document in TOAST a walk
-- newest first or a count read three times the pages it expected (measured 3-4 times slower).
--
-- gin_pending_list_limit = 256 kB (default 4 MB): every search scans the index's pending list of
-- unmerged entries, and the planner prices it page by page, so a full 4 MB list made a rare word
-- cost more through the index than a scan of a small agent. PGlite has no autovacuum: the list is
-- merged by the write that fills it, now at most 256 kB at a time. Writes still batch every lexeme
-- of about 150 records per merge (no difference measured in CPU or WAL per write).
--
-- Adding a stored generated column REWRITES "Memory" under an ACCESS EXCLUSIVE lock: every existing
-- row gets its document computed (about 0.5 ms per 1.5 KB record on 2 cores), reads and writes of
-- every agent wait meanwhile (docs/operating.md). The expression index goes first, so the rewrite
-- does not rebuild it only to drop it, and the storage is set in the same statement, so the rewrite
-- already stores every document in its row.
-- (No semicolon in these comments: the PostgreSQL adapter splits the script at each one.)

-- DropIndex
DROP INDEX "Memory_search_idx";

-- AlterTable
ALTER TABLE "Memory" ADD COLUMN "searchDocument" tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, content) || json_to_tsvector('english'::regconfig, CASE WHEN strpos(metadata::text, '\u') = 0 THEN metadata ELSE regexp_replace(metadata::text, '\\u(0000|d[89a-f][0-9a-f]{2})', '\\u0020', 'gi')::json END, '["string"]'::jsonb)) STORED,
  ALTER COLUMN "searchDocument" SET STORAGE MAIN;

-- CreateIndex
CREATE INDEX "Memory_search_idx" ON "Memory" USING GIN ("searchDocument") WITH (gin_pending_list_limit = 256);
