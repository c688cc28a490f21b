-- CreateIndex
CREATE INDEX "Order_cartId_idx" ON "Order"("cartId");
