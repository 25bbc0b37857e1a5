-- L2: a per-agent, gapless sequence in commit order. The write statement takes the next value from
-- "Agent"."lastSeq" under the agent's row lock, so a later seq never commits before an earlier one.

-- AlterTable
ALTER TABLE "Agent" ADD COLUMN     "lastSeq" BIGINT NOT NULL DEFAULT 0;

-- AlterTable (hand-edited: existing records are numbered per agent in their (createdAt, id) order,
-- the order resume followed before, and then the column becomes NOT NULL)
ALTER TABLE "Memory" ADD COLUMN     "seq" BIGINT;

UPDATE "Memory" m SET "seq" = numbered.seq
  FROM (SELECT id, row_number() OVER (PARTITION BY "agentId" ORDER BY "createdAt", id) AS seq FROM "Memory") numbered
 WHERE m.id = numbered.id;

UPDATE "Agent" a SET "lastSeq" = counted.last
  FROM (SELECT "agentId", max("seq") AS last FROM "Memory" GROUP BY "agentId") counted
 WHERE a.id = counted."agentId";

ALTER TABLE "Memory" ALTER COLUMN "seq" SET NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "Memory_agentId_seq_key" ON "Memory"("agentId", "seq");
