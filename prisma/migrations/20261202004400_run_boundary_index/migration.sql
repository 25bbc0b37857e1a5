-- CreateIndex
CREATE INDEX "Run_agentId_evidenceBoundary_idx" ON "Run"("agentId", "evidenceBoundary");
