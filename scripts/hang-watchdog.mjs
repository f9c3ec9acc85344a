// A watchdog for the test runs: a Vitest whose output has been silent for longer than any test file
// takes is stuck, most likely a test worker whose main thread is blocked in native code (a test's
// own timeout cannot fire then). Rather than wait for CI's 90-minute limit, it prints what each of
// the run's processes is doing — every thread's kernel wait and, with gdb installed, its native
// stack, and the temporary files it holds (which name the test's data directory) — and stops the run.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Runs `command` with its output copied to ours, under watchForSilence. Resolves to `{ code, hung }`.
 */
export function runWithHangWatchdog(command, args, { cwd, env, silentForMs, name }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(process.stdout, { end: false });
    child.stderr.pipe(process.stderr, { end: false });
    const watch = watchForSilence(child, { silentForMs, name });
    child.on('error', (error) => console.error(`could not run ${command}: ${error.message}`));
    child.on('close', (code) => resolve({ code: code ?? 1, hung: watch.hung }));
  });
}

/**
 * Watches a child's stdout and stderr; once both have been silent for `silentForMs`, reports on its
 * process tree and kills it, parents first so that nothing restarts a killed worker.
 */
export function watchForSilence(child, { silentForMs, name }) {
  const state = { hung: false };
  let lastOutput = Date.now();
  const heard = () => (lastOutput = Date.now());
  child.stdout.on('data', heard);
  child.stderr.on('data', heard);
  const timer = setInterval(() => {
    if (state.hung || Date.now() - lastOutput < silentForMs) return;
    state.hung = true;
    console.error(
      `\n${name} printed nothing for ${Math.round(silentForMs / 1000)} s: a test is stuck. ` +
        'What its processes are doing:',
    );
    const tree = descendantsOf(child.pid);
    for (const pid of tree) console.error(describeProcess(pid));
    for (const pid of tree) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }, 5_000);
  child.on('close', () => clearInterval(timer));
  return state;
}

/** `pid` and every process below it, parents first (from /proc; Linux only, like the CI). */
function descendantsOf(pid) {
  const children = new Map();
  for (const entry of safeReaddir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = Number(/^\d+ \(.*\) \S (\d+)/s.exec(safeRead(`/proc/${entry}/stat`))?.[1]);
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(Number(entry));
  }
  const found = [];
  const visit = (id) => {
    found.push(id);
    for (const child of children.get(id) ?? []) visit(child);
  };
  visit(pid);
  return found;
}

function describeProcess(pid) {
  const lines = [`-- pid ${pid}: ${safeRead(`/proc/${pid}/cmdline`).replaceAll('\0', ' ').slice(0, 300)}`];
  for (const task of safeReaddir(`/proc/${pid}/task`)) {
    const comm = safeRead(`/proc/${pid}/task/${task}/comm`).trim();
    const wchan = safeRead(`/proc/${pid}/task/${task}/wchan`).trim();
    lines.push(`   thread ${task} ${comm}: waiting in ${wchan || '(running)'}`);
  }
  const files = safeReaddir(`/proc/${pid}/fd`)
    .map((fd) => safeReadlink(`/proc/${pid}/fd/${fd}`))
    .filter((target) => target.startsWith('/tmp/'));
  if (files.length > 0) lines.push(`   holds ${[...new Set(files)].join(', ')}`);
  const gdb = spawnSync('gdb', ['-p', String(pid), '-batch', '-ex', 'thread apply all bt 30'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (gdb.error === undefined && gdb.status === 0) {
    const frames = gdb.stdout.split('\n').filter((line) => /^(Thread |#\d)/.test(line));
    lines.push(...frames.map((line) => `   ${line}`));
  } else {
    lines.push('   (no native stacks: gdb is not installed or could not attach)');
  }
  return lines.join('\n');
}

function safeReaddir(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function safeRead(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function safeReadlink(link) {
  try {
    return readlinkSync(link);
  } catch {
    return '';
  }
}
