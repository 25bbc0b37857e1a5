-- DropIndex
DROP INDEX "Memory_agentId_idempotencyKey_key";

-- AlterTable
ALTER TABLE "OperatorToken" ADD COLUMN     "label" TEXT,
ADD COLUMN     "revokedAt" TIMESTAMPTZ(3);

-- CreateIndex
CREATE UNIQUE INDEX "Memory_producerId_idempotencyKey_key" ON "Memory"("producerId", "idempotencyKey");
