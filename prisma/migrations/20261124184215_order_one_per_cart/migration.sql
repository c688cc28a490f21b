-- DropIndex
DROP INDEX "Order_cartId_idx";

-- CreateIndex
CREATE UNIQUE INDEX "Order_cartId_key" ON "Order"("cartId");
