#!/usr/bin/env node
// A static server for web/ (no caching: every request reads the file again).
//   node scripts/serve.js [port]        or   PORT=8081 node scripts/serve.js
// Port 0 picks any free port. Required as a module: startServer(port) -> Promise<{url, close()}>.
'use strict';

const http = require('node:http');
const path = require('node:path');
const sirv = require('sirv');

const HOST = '127.0.0.1';
const WEB_DIR = path.join(__dirname, '..', 'web');

function parsePort(value) {
  if (value === undefined || value === '') return 8080;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`port must be a whole number from 0 to 65535, not '${value}'`);
  }
  return port;
}

function startServer(port = 0) {
  const serve = sirv(WEB_DIR, { dev: true });
  const server = http.createServer((req, res) => {
    serve(req, res, () => {
      res.statusCode = 404;
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.end('Not found\n');
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => {
      server.off('error', reject);
      const url = `http://${HOST}:${server.address().port}/`;
      resolve({
        url,
        server,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            if (server.closeAllConnections) server.closeAllConnections();
          }),
      });
    });
  });
}

if (require.main === module) {
  let port;
  try {
    port = parsePort(process.env.PORT !== undefined && process.env.PORT !== '' ? process.env.PORT : process.argv[2]);
  } catch (e) {
    console.error(`serve: ${e.message}`);
    process.exit(1);
  }
  startServer(port).then(
    ({ url }) => console.log(`Serving the page at ${url}`),
    (e) => {
      if (e && e.code === 'EADDRINUSE') {
        console.error(`serve: port ${port} is already in use; pick another one, e.g. PORT=8081 npm start`);
      } else {
        console.error(`serve: ${e && e.message ? e.message : e}`);
      }
      process.exit(1);
    },
  );
}

module.exports = { startServer };
