-- CreateIndex
CREATE INDEX "Cart_applicationId_environmentId_customerId_createdAt_id_idx" ON "Cart"("applicationId", "environmentId", "customerId", "createdAt" DESC, "id" DESC);
