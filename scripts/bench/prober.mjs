// Runs inside the client namespace for the grant latency figure: on a command over stdin it tries
// TCP connections from the client address to the protected listener back to back until the wanted
// outcome, and prints the moment it saw it on the monotonic clock (process.hrtime.bigint() is
// CLOCK_MONOTONIC, comparable with the benchmark's own readings in another process).
//
//   stdin:  "open <id>"   connect until a connection succeeds (the entry is in the set)
//           "closed <id>" connect until one is refused (the entry is gone)
//   stdout: "started <id>", then "<open|closed> <id> <hrtime ns> <attempts> <first attempt hrtime ns>"
//           or "timeout <id> <attempts>"
//
// A refused attempt costs about a tenth of a millisecond (iptables answers the SYN with a reset), so
// that is the resolution. Successful connections are closed with a reset, leaving no TIME_WAIT.
import net from 'node:net';
import readline from 'node:readline';

const [host, port, source] = process.argv.slice(2);
const TIMEOUT_NS = 10_000_000_000n;
let generation = 0;

function probe(want, id) {
  generation += 1;
  const mine = generation;
  const firstAt = process.hrtime.bigint();
  let attempts = 0;
  const attempt = () => {
    if (mine !== generation) return;
    if (process.hrtime.bigint() - firstAt > TIMEOUT_NS) {
      process.stdout.write(`timeout ${id} ${attempts}\n`);
      return;
    }
    attempts += 1;
    const socket = net.connect({ host, port: Number(port), localAddress: source });
    let settled = false;
    const settle = (connected) => {
      if (settled) return;
      settled = true;
      const at = process.hrtime.bigint();
      if (connected) socket.resetAndDestroy();
      else socket.destroy();
      if (connected === (want === 'open')) process.stdout.write(`${want} ${id} ${at} ${attempts} ${firstAt}\n`);
      else attempt();
    };
    socket.once('connect', () => settle(true));
    socket.on('error', () => settle(false));
  };
  attempt();
  process.stdout.write(`started ${id}\n`);
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, id] = line.trim().split(/\s+/);
  if (command === 'open' || command === 'closed') probe(command, id);
  else if (command === 'quit') process.exit(0);
});
process.stdin.on('end', () => process.exit(0));
process.stdout.write('prober ready\n');
