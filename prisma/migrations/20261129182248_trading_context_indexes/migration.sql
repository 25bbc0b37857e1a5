-- DropIndex
DROP INDEX "Memory_agentId_runKind_producerId_type_scope_createdAt_id_idx";

-- DropIndex
DROP INDEX "MemoryTarget_agentId_instrumentId_runKind_producerId_type_c_idx";

-- CreateIndex
CREATE INDEX "Memory_agentId_runKind_scope_isCorrection_producerId_type_c_idx" ON "Memory"("agentId", "runKind", "scope", "isCorrection", "producerId", "type", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "MemoryTarget_agentId_instrumentId_runKind_isCorrection_prod_idx" ON "MemoryTarget"("agentId", "instrumentId", "runKind", "isCorrection", "producerId", "type", "createdAt" DESC, "memoryId" DESC);
