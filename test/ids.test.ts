import { z } from "zod";
import { isUuid } from "../src/shared/ids";

// isUuid is z.uuid() built once: the same answer for every input the by-id lookups can receive.
test.each([
  ["0b6a3c1e-7d2f-4a51-9c83-2f4e5d6a7b8c", true],
  ["0B6A3C1E-7D2F-4A51-9C83-2F4E5D6A7B8C", true],
  ["00000000-0000-0000-0000-000000000000", true],
  ["0b6a3c1e-7d2f-4a51-9c83-2f4e5d6a7b8", false],
  ["0b6a3c1e7d2f4a519c832f4e5d6a7b8c", false],
  ["0b6a3c1e-7d2f-4a51-9c83-2f4e5d6a7b8c ", false],
  ["' OR 1=1 --", false],
  ["", false],
  [42, false],
  [null, false],
  [undefined, false],
])("isUuid(%j) is %s, as z.uuid() says", (value, expected) => {
  expect(isUuid(value)).toBe(expected);
  expect(z.uuid().safeParse(value).success).toBe(expected);
});
