-- CreateIndex
CREATE INDEX "Run_agentId_startedAt_id_idx" ON "Run"("agentId", "startedAt" DESC, "id" DESC);
