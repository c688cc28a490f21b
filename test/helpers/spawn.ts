// Runs the real entry points (npm start, CLIs) as child processes, the way a user does.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import path from "node:path";

export const ROOT = path.resolve(__dirname, "../..");
const TSX = path.join(ROOT, "node_modules/.bin/tsx");

/** The port the service printed in its "listening on" line. */
export function portOf(s: Started) {
  return Number(/listening on http:\/\/localhost:(\d+)/.exec(s.output())![1]);
}

/** Like runCli, without blocking this process (a receiver in the test must keep answering). */
export function runCliAsync(script: string, args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(TSX, [script, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    p.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

export function runCli(script: string, args: string[], env: Record<string, string>) {
  const r = spawnSync(TSX, [script, ...args], { cwd: ROOT, env: { ...process.env, ...env }, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface Started {
  proc: ChildProcess;
  kill9: () => Promise<void>;
  output: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** tsx runs the program in a grandchild: signal the whole process group. */
function killGroup(p: ChildProcess, signal: NodeJS.Signals) {
  try {
    process.kill(-p.pid!, signal);
  } catch {
    p.kill(signal);
  }
}

/** Kills every service a test started and did not stop (call from afterAll so Jest can exit). */
export function killAll() {
  for (const p of running) killGroup(p, "SIGKILL");
  running.clear();
}

/** Starts src/main.ts and resolves once `ready` matches the output (or rejects after timeoutMs). */
export function startService(env: Record<string, string>, ready = /listening on/, timeoutMs = 90_000, args: string[] = []): Promise<Started> {
  return startScript("src/main.ts", args, env, ready, timeoutMs);
}

/**
 * Starts any entry point (e.g. src/cli/jobs.ts) in its own process group; resolves once `ready` matches. It runs as
 * `node --import tsx <script>`, one process, so a signal reaches the program itself: tsx's CLI relays a signal to
 * its child and kills the child outright when it does not acknowledge within 30 ms, which a busy CI machine misses
 * (a graceful stop then ended in exit 143 with the data folder still locked).
 */
export function startScript(script: string, args: string[], env: Record<string, string>, ready: RegExp | null = null, timeoutMs = 90_000): Promise<Started> {
  return startCommand(process.execPath, ["--import", "tsx", script, ...args], env, ready, timeoutMs, script);
}

/** The same command line for a process a test spawns itself (see startScript). */
export const tsxArgs = (script: string, args: string[] = []) => ["--import", "tsx", script, ...args];

/** Starts any command (e.g. node on a compiled entry point) the same way. */
export function startCommand(command: string, argv: string[], env: Record<string, string>, ready: RegExp | null = null, timeoutMs = 90_000, name?: string): Promise<Started> {
  const script = name ?? argv[0] ?? command;
  const proc = spawn(command, argv, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  running.add(proc);
  proc.once("exit", () => running.delete(proc));
  let out = "";
  const started: Started = {
    proc,
    output: () => out,
    kill9: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once("exit", () => resolve());
        killGroup(proc, "SIGKILL");
      }),
    stop: (signal = "SIGTERM") =>
      new Promise((resolve) => {
        if (proc.exitCode !== null) return resolve(proc.exitCode);
        proc.once("exit", (code) => resolve(code));
        if (signal === "SIGKILL") killGroup(proc, signal);
        else proc.kill(signal);
      }),
  };
  if (!ready) {
    proc.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    proc.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    return Promise.resolve(started);
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(proc, "SIGKILL");
      reject(new Error(`${script} did not start in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve(started);
      }
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", onData);
    proc.once("exit", (code) => {
      clearTimeout(timer);
      if (!ready.test(out)) reject(new Error(`${script} exited with ${code}:\n${out}`));
    });
  });
}
