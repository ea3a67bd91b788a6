// A small HTTP server for the http-server example: it answers who it is, and /healthz for its
// readiness probe. Setpoint's node agent runs every replica as a process on this machine's network,
// so replicas cannot share a port: each listens on the first free port from PORT (default 8000)
// upwards and writes the one it got to the file `port` in its working directory.
//
//   node server.mjs          serve
//   node server.mjs check    exit 0 if this replica's server (the port in ./port) answers /healthz
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';

const host = '127.0.0.1';
const name = process.env.POD_NAME ?? 'http-server';

if (process.argv[2] === 'check') {
  // The readiness probe: runs in the container's working directory, so `port` is this replica's,
  // and the server on that port must answer from this same directory (not another program's).
  try {
    const port = readFileSync('port', 'utf8').trim();
    const res = await fetch(`http://${host}:${port}/healthz`, { signal: AbortSignal.timeout(4000) });
    process.exit(res.ok && (await res.text()) === `${process.cwd()}\n` ? 0 : 1);
  } catch {
    process.exit(1);
  }
}

const server = createServer((req, res) => {
  if (req.url === '/healthz') {
    res.end(`${process.cwd()}\n`);
    return;
  }
  console.log(`${req.method} ${req.url}`);
  res.end(`hello from ${name} (pid ${process.pid}, port ${server.address().port})\n`);
});

/** Listens on the first free port from `port` upwards; gives up after `tries` ports. */
function listen(port, tries = 100) {
  const taken = (err) => {
    server.off('listening', listening);
    if (err.code !== 'EADDRINUSE' || tries <= 1) throw err;
    listen(port + 1, tries - 1);
  };
  const listening = () => {
    server.off('error', taken);
    writeFileSync('port', `${port}\n`);
    console.log(`${name} listening on http://${host}:${port}`);
  };
  server.once('error', taken);
  server.once('listening', listening);
  server.listen(port, host);
}

listen(Number(process.env.PORT ?? 8000));

// The agent stops a container with SIGTERM (then SIGKILL after the grace period).
process.on('SIGTERM', () => {
  console.log('SIGTERM: stopping');
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
