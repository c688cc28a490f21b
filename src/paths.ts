// Files the service reads that are not code (migrations, the extension bridge's browser modules) live under the
// project root. They are found from here rather than from the working directory, so CLI commands work from anywhere,
// and by walking up to package.json rather than by a fixed number of "..", so the same code finds them when it runs
// from src/ under tsx (`npm start`) or compiled into dist/src/ (`npm run build`, then `npm run start:built`).
import { existsSync } from "node:fs";
import path from "node:path";

function projectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json")) && existsSync(path.join(dir, "prisma", "migrations"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no project root (package.json beside prisma/migrations) above ${from}`);
  }
}

export const PROJECT_ROOT = projectRoot(__dirname);
