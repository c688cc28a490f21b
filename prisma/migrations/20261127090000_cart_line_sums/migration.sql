-- The sums of a cart's lines, read with a fresh snapshot: the function is VOLATILE plpgsql, so each query in it takes
-- its own snapshot under READ COMMITTED. The line-add statement (src/carts/cart-items.service.ts) calls it once that
-- statement holds the cart's row lock, so it sees every line committed before the lock was granted, which the
-- statement's own snapshot (taken before it waited for the lock) may not: the 250-line cap and the totals' ceiling
-- hold under concurrent adds without a transaction around the statement. Prisma's schema does not describe functions;
-- this migration is its only source.
CREATE FUNCTION cart_line_sums(cart uuid, OUT n int, OUT subtotal float8, OUT discount float8, OUT tax float8)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  SELECT count(*)::int, COALESCE(SUM(l."unitPrice"::bigint * l.quantity), 0)::float8,
         COALESCE(SUM(l."discountAmount"), 0)::float8, COALESCE(SUM(l."taxAmount"), 0)::float8
    INTO n, subtotal, discount, tax
    FROM "CartLineItem" l WHERE l."cartId" = cart;
END
$$;
