-- D1: every agent-owned table leads its primary, unique and foreign keys with the agent id, and its
-- foreign keys use actions Citus accepts (no ON UPDATE CASCADE, no ON DELETE SET NULL on a composite
-- key). Converts a database in place: the two tables without an agent column get it from their
-- parent row before it becomes NOT NULL and part of the key, agent names move to the AgentName
-- reference table. No id, seq or token hash changes, so every cursor and token stays valid.

-- DropForeignKey
ALTER TABLE "AgentInstrument" DROP CONSTRAINT "AgentInstrument_agentId_fkey";

-- DropForeignKey
ALTER TABLE "AgentInstrument" DROP CONSTRAINT "AgentInstrument_instrumentId_fkey";

-- DropForeignKey
ALTER TABLE "Memory" DROP CONSTRAINT "Memory_agentId_fkey";

-- DropForeignKey
ALTER TABLE "Memory" DROP CONSTRAINT "Memory_producerId_fkey";

-- DropForeignKey
ALTER TABLE "Memory" DROP CONSTRAINT "Memory_sourceRunId_fkey";

-- DropForeignKey
ALTER TABLE "MemoryLink" DROP CONSTRAINT "MemoryLink_memoryId_fkey";

-- DropForeignKey
ALTER TABLE "MemoryLink" DROP CONSTRAINT "MemoryLink_targetMemoryId_fkey";

-- DropForeignKey
ALTER TABLE "MemoryTarget" DROP CONSTRAINT "MemoryTarget_instrumentId_fkey";

-- DropForeignKey
ALTER TABLE "MemoryTarget" DROP CONSTRAINT "MemoryTarget_memoryId_fkey";

-- DropForeignKey
ALTER TABLE "OperatorToken" DROP CONSTRAINT "OperatorToken_agentId_fkey";

-- DropForeignKey
ALTER TABLE "Producer" DROP CONSTRAINT "Producer_agentId_fkey";

-- DropForeignKey
ALTER TABLE "ProducerEnablement" DROP CONSTRAINT "ProducerEnablement_producerId_fkey";

-- DropForeignKey
ALTER TABLE "Run" DROP CONSTRAINT "Run_agentId_fkey";

-- DropForeignKey
ALTER TABLE "Run" DROP CONSTRAINT "Run_producerId_fkey";

-- DropIndex
DROP INDEX "Agent_name_key";

-- DropIndex
DROP INDEX "Memory_producerId_idempotencyKey_key";

-- DropIndex
DROP INDEX "MemoryLink_targetMemoryId_idx";

-- DropIndex
DROP INDEX "MemoryTarget_memoryId_instrumentId_key";

-- DropIndex
DROP INDEX "OperatorToken_agentId_idx";

-- DropIndex
DROP INDEX "OperatorToken_tokenHash_key";

-- DropIndex
DROP INDEX "Producer_agentId_idx";

-- DropIndex
DROP INDEX "ProducerEnablement_producerId_changedAt_idx";

-- DropIndex
DROP INDEX "Run_producerId_startedAt_idx";

-- DropIndex
DROP INDEX "Run_tokenHash_key";

-- AlterTable
ALTER TABLE "AgentInstrument" DROP CONSTRAINT "AgentInstrument_pkey",
ADD CONSTRAINT "AgentInstrument_pkey" PRIMARY KEY ("agentId", "id");

-- AlterTable
ALTER TABLE "Memory" DROP CONSTRAINT "Memory_pkey",
ADD CONSTRAINT "Memory_pkey" PRIMARY KEY ("agentId", "id");

-- AlterTable: the agent id of a link is its record's (backfilled before NOT NULL and the new key)
ALTER TABLE "MemoryLink" ADD COLUMN "agentId" UUID;
UPDATE "MemoryLink" l SET "agentId" = m."agentId" FROM "Memory" m WHERE m.id = l."memoryId";
ALTER TABLE "MemoryLink" DROP CONSTRAINT "MemoryLink_pkey",
ALTER COLUMN "agentId" SET NOT NULL,
ADD CONSTRAINT "MemoryLink_pkey" PRIMARY KEY ("agentId", "memoryId", "position");

-- AlterTable
ALTER TABLE "MemoryTarget" DROP CONSTRAINT "MemoryTarget_pkey",
ADD CONSTRAINT "MemoryTarget_pkey" PRIMARY KEY ("agentId", "memoryId", "position");

-- AlterTable
ALTER TABLE "OperatorToken" DROP CONSTRAINT "OperatorToken_pkey",
ADD CONSTRAINT "OperatorToken_pkey" PRIMARY KEY ("agentId", "id");

-- AlterTable
ALTER TABLE "Producer" DROP CONSTRAINT "Producer_pkey",
ADD CONSTRAINT "Producer_pkey" PRIMARY KEY ("agentId", "id");

-- AlterTable: the agent id of an enablement is its producer's (backfilled before NOT NULL and the new key)
ALTER TABLE "ProducerEnablement" ADD COLUMN "agentId" UUID;
UPDATE "ProducerEnablement" e SET "agentId" = p."agentId" FROM "Producer" p WHERE p.id = e."producerId";
ALTER TABLE "ProducerEnablement" DROP CONSTRAINT "ProducerEnablement_pkey",
ALTER COLUMN "agentId" SET NOT NULL,
ADD CONSTRAINT "ProducerEnablement_pkey" PRIMARY KEY ("agentId", "id");

-- AlterTable
ALTER TABLE "Run" DROP CONSTRAINT "Run_pkey",
ADD CONSTRAINT "Run_pkey" PRIMARY KEY ("agentId", "id");

-- CreateTable
CREATE TABLE "AgentName" (
    "name" TEXT NOT NULL,
    "agentId" UUID NOT NULL,

    CONSTRAINT "AgentName_pkey" PRIMARY KEY ("name")
);

-- Backfill: every existing agent's name (unique until now through Agent_name_key)
INSERT INTO "AgentName" ("name", "agentId") SELECT "name", "id" FROM "Agent";

-- CreateIndex
CREATE UNIQUE INDEX "AgentName_agentId_key" ON "AgentName"("agentId");

-- CreateIndex
CREATE UNIQUE INDEX "Memory_producerId_idempotencyKey_key" ON "Memory"("producerId", "idempotencyKey", "agentId");

-- CreateIndex
CREATE INDEX "MemoryLink_agentId_targetMemoryId_idx" ON "MemoryLink"("agentId", "targetMemoryId");

-- CreateIndex
CREATE UNIQUE INDEX "MemoryTarget_agentId_memoryId_instrumentId_key" ON "MemoryTarget"("agentId", "memoryId", "instrumentId");

-- CreateIndex
CREATE UNIQUE INDEX "OperatorToken_agentId_tokenHash_key" ON "OperatorToken"("agentId", "tokenHash");

-- CreateIndex
CREATE INDEX "ProducerEnablement_agentId_producerId_changedAt_idx" ON "ProducerEnablement"("agentId", "producerId", "changedAt" DESC);

-- CreateIndex
CREATE INDEX "Run_agentId_producerId_startedAt_idx" ON "Run"("agentId", "producerId", "startedAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "Run_agentId_tokenHash_key" ON "Run"("agentId", "tokenHash");

-- AddForeignKey
ALTER TABLE "AgentInstrument" ADD CONSTRAINT "AgentInstrument_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "AgentInstrument" ADD CONSTRAINT "AgentInstrument_instrumentId_fkey" FOREIGN KEY ("instrumentId") REFERENCES "Instrument"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "Producer" ADD CONSTRAINT "Producer_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "ProducerEnablement" ADD CONSTRAINT "ProducerEnablement_agentId_producerId_fkey" FOREIGN KEY ("agentId", "producerId") REFERENCES "Producer"("agentId", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_agentId_producerId_fkey" FOREIGN KEY ("agentId", "producerId") REFERENCES "Producer"("agentId", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "Memory" ADD CONSTRAINT "Memory_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "Memory" ADD CONSTRAINT "Memory_agentId_sourceRunId_fkey" FOREIGN KEY ("agentId", "sourceRunId") REFERENCES "Run"("agentId", "id") ON DELETE NO ACTION ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "Memory" ADD CONSTRAINT "Memory_agentId_producerId_fkey" FOREIGN KEY ("agentId", "producerId") REFERENCES "Producer"("agentId", "id") ON DELETE NO ACTION ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "MemoryTarget" ADD CONSTRAINT "MemoryTarget_agentId_memoryId_fkey" FOREIGN KEY ("agentId", "memoryId") REFERENCES "Memory"("agentId", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "MemoryTarget" ADD CONSTRAINT "MemoryTarget_instrumentId_fkey" FOREIGN KEY ("instrumentId") REFERENCES "Instrument"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "MemoryLink" ADD CONSTRAINT "MemoryLink_agentId_memoryId_fkey" FOREIGN KEY ("agentId", "memoryId") REFERENCES "Memory"("agentId", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "MemoryLink" ADD CONSTRAINT "MemoryLink_agentId_targetMemoryId_fkey" FOREIGN KEY ("agentId", "targetMemoryId") REFERENCES "Memory"("agentId", "id") ON DELETE NO ACTION ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "OperatorToken" ADD CONSTRAINT "OperatorToken_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE NO ACTION;
