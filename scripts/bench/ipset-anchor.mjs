// Runs inside the protected namespace for the grant latency figure's anchors: what the kernel path
// costs without Postern, to compare Postern's grant with. On a command over stdin it changes the
// benchmark's set one of two ways, and says when it has handed the change over:
//
//   stdin:  "shell <add|del> <set> <address> <id>"  one line to an already running `ipset -exist -`
//                                                   (the physical limit of a userspace change)
//           "spawn <add|del> <set> <address> <id>"  a new `ipset -exist add|del …` process per change
//   stdout: "sent <id>" once the line is written or the process spawned; "error <id> <text>"
//
// The benchmark times from writing the command to this process until the prober sees the
// connection admitted or refused, as it times Postern's grant from the request.
import { spawn } from 'node:child_process';
import readline from 'node:readline';

const TIMEOUT_SECONDS = '60';
const shell = spawn('ipset', ['-exist', '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
shell.stderr.on('data', (chunk) => process.stderr.write(`ipset shell: ${chunk}`));
shell.on('exit', (code) => {
  process.stderr.write(`the ipset shell ended (${code})\n`);
  process.exit(1);
});

const argsFor = (action, set, address) =>
  action === 'add' ? ['add', set, address, 'timeout', TIMEOUT_SECONDS] : ['del', set, address];

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const [mode, action, set, address, id] = line.trim().split(/\s+/);
  if (mode === 'quit') process.exit(0);
  if ((action !== 'add' && action !== 'del') || set === undefined || address === undefined || id === undefined) {
    process.stdout.write(`error ${id ?? '?'} bad command\n`);
    return;
  }
  if (mode === 'shell') {
    shell.stdin.write(`${argsFor(action, set, address).join(' ')}\n`);
    process.stdout.write(`sent ${id}\n`);
  } else if (mode === 'spawn') {
    const child = spawn('ipset', ['-exist', ...argsFor(action, set, address)], { stdio: 'ignore' });
    child.on('error', (error) => process.stdout.write(`error ${id} ${error.message}\n`));
    process.stdout.write(`sent ${id}\n`);
  } else {
    process.stdout.write(`error ${id} unknown mode ${mode}\n`);
  }
});
process.stdin.on('end', () => process.exit(0));
process.stdout.write('anchor ready\n');
