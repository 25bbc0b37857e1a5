-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "RunKind" AS ENUM ('ANALYSIS', 'TRADING', 'REVIEW');

-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED');

-- CreateEnum
CREATE TYPE "MemoryScope" AS ENUM ('AGENT', 'INSTRUMENTS');

-- CreateTable
CREATE TABLE "Agent" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Agent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Instrument" (
    "id" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Instrument_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AgentInstrument" (
    "id" UUID NOT NULL,
    "agentId" UUID NOT NULL,
    "instrumentId" TEXT NOT NULL,
    "selectedAt" TIMESTAMPTZ(3) NOT NULL,
    "deselectedAt" TIMESTAMPTZ(3),

    CONSTRAINT "AgentInstrument_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Producer" (
    "id" UUID NOT NULL,
    "agentId" UUID NOT NULL,
    "kind" "RunKind" NOT NULL,
    "name" TEXT NOT NULL,
    "schedule" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Producer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ProducerEnablement" (
    "id" UUID NOT NULL,
    "producerId" UUID NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "changedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ProducerEnablement_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Run" (
    "id" UUID NOT NULL,
    "agentId" UUID NOT NULL,
    "producerId" UUID NOT NULL,
    "kind" "RunKind" NOT NULL,
    "schedule" TEXT,
    "evidenceBoundary" TIMESTAMPTZ(3),
    "status" "RunStatus" NOT NULL DEFAULT 'RUNNING',
    "startedAt" TIMESTAMPTZ(3) NOT NULL,
    "finishedAt" TIMESTAMPTZ(3),
    "tokenHash" TEXT NOT NULL,

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Memory" (
    "id" UUID NOT NULL,
    "agentId" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "scope" "MemoryScope" NOT NULL,
    "content" TEXT NOT NULL,
    "metadata" JSON NOT NULL,
    "timeframe" TEXT,
    "sourceRunId" UUID,
    "producerId" UUID,
    "runKind" "RunKind",
    "isCorrection" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "expiresAt" TIMESTAMPTZ(3),
    "expiryPolicy" TEXT,
    "idempotencyKey" TEXT,
    "requestHash" TEXT,

    CONSTRAINT "Memory_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MemoryTarget" (
    "memoryId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "instrumentId" TEXT NOT NULL,
    "agentId" UUID NOT NULL,
    "producerId" UUID,
    "runKind" "RunKind",
    "type" TEXT NOT NULL,
    "isCorrection" BOOLEAN NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "MemoryTarget_pkey" PRIMARY KEY ("memoryId","position")
);

-- CreateTable
CREATE TABLE "MemoryLink" (
    "memoryId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "targetMemoryId" UUID NOT NULL,
    "linkType" TEXT NOT NULL,

    CONSTRAINT "MemoryLink_pkey" PRIMARY KEY ("memoryId","position")
);

-- CreateTable
CREATE TABLE "OperatorToken" (
    "id" UUID NOT NULL,
    "agentId" UUID NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OperatorToken_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Agent_name_key" ON "Agent"("name");

-- CreateIndex
CREATE INDEX "AgentInstrument_agentId_instrumentId_deselectedAt_idx" ON "AgentInstrument"("agentId", "instrumentId", "deselectedAt");

-- CreateIndex
CREATE INDEX "Producer_agentId_idx" ON "Producer"("agentId");

-- CreateIndex
CREATE UNIQUE INDEX "Producer_agentId_name_key" ON "Producer"("agentId", "name");

-- CreateIndex
CREATE INDEX "ProducerEnablement_producerId_changedAt_idx" ON "ProducerEnablement"("producerId", "changedAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "Run_tokenHash_key" ON "Run"("tokenHash");

-- CreateIndex
CREATE INDEX "Run_producerId_startedAt_idx" ON "Run"("producerId", "startedAt" DESC);

-- CreateIndex
CREATE INDEX "Memory_agentId_createdAt_id_idx" ON "Memory"("agentId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Memory_agentId_type_createdAt_id_idx" ON "Memory"("agentId", "type", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Memory_agentId_runKind_producerId_type_scope_createdAt_id_idx" ON "Memory"("agentId", "runKind", "producerId", "type", "scope", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "Memory_agentId_idempotencyKey_key" ON "Memory"("agentId", "idempotencyKey");

-- CreateIndex
CREATE INDEX "MemoryTarget_agentId_instrumentId_runKind_producerId_type_c_idx" ON "MemoryTarget"("agentId", "instrumentId", "runKind", "producerId", "type", "createdAt" DESC, "memoryId" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "MemoryTarget_memoryId_instrumentId_key" ON "MemoryTarget"("memoryId", "instrumentId");

-- CreateIndex
CREATE INDEX "MemoryLink_targetMemoryId_idx" ON "MemoryLink"("targetMemoryId");

-- CreateIndex
CREATE UNIQUE INDEX "OperatorToken_tokenHash_key" ON "OperatorToken"("tokenHash");

-- CreateIndex
CREATE INDEX "OperatorToken_agentId_idx" ON "OperatorToken"("agentId");

-- AddForeignKey
ALTER TABLE "AgentInstrument" ADD CONSTRAINT "AgentInstrument_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AgentInstrument" ADD CONSTRAINT "AgentInstrument_instrumentId_fkey" FOREIGN KEY ("instrumentId") REFERENCES "Instrument"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Producer" ADD CONSTRAINT "Producer_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ProducerEnablement" ADD CONSTRAINT "ProducerEnablement_producerId_fkey" FOREIGN KEY ("producerId") REFERENCES "Producer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_producerId_fkey" FOREIGN KEY ("producerId") REFERENCES "Producer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Memory" ADD CONSTRAINT "Memory_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Memory" ADD CONSTRAINT "Memory_sourceRunId_fkey" FOREIGN KEY ("sourceRunId") REFERENCES "Run"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Memory" ADD CONSTRAINT "Memory_producerId_fkey" FOREIGN KEY ("producerId") REFERENCES "Producer"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MemoryTarget" ADD CONSTRAINT "MemoryTarget_memoryId_fkey" FOREIGN KEY ("memoryId") REFERENCES "Memory"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MemoryTarget" ADD CONSTRAINT "MemoryTarget_instrumentId_fkey" FOREIGN KEY ("instrumentId") REFERENCES "Instrument"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MemoryLink" ADD CONSTRAINT "MemoryLink_memoryId_fkey" FOREIGN KEY ("memoryId") REFERENCES "Memory"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MemoryLink" ADD CONSTRAINT "MemoryLink_targetMemoryId_fkey" FOREIGN KEY ("targetMemoryId") REFERENCES "Memory"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OperatorToken" ADD CONSTRAINT "OperatorToken_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;
